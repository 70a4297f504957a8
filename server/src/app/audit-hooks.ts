/**
 * Pipeline step 7: the audit trail's hooks: every API call is recorded when its response is sent
 * (after the metrics hook), the start-up is recorded, and retention pruning starts.
 */
import type { FastifyInstance } from 'fastify';
import { requestEntry } from '../audit/request-audit.js';
import { SERVICE_VERSION } from '../routes/health-routes.js';
import type { Services } from '../services/services.js';
import { auditContext } from './errors.js';

/** Registers the audit `onResponse` hook and records the start-up (nothing without a trail). */
export function registerAuditHooks(app: FastifyInstance, services: Pick<Services, 'audit' | 'clock' | 'config'>): void {
  const trail = services.audit.trail;
  if (trail === null) return;
  const { clock } = services;
  app.addHook('onResponse', (request, reply, done) => {
    if (auditContext(request).record !== false) trail.enqueue(requestEntry(request, reply, clock.now()));
    done();
  });
  trail.recordEvent({
    event_type: 'startup',
    action: 'server.start',
    status: 'success',
    details: { pid: process.pid, version: SERVICE_VERSION, authentication: services.config.authEnabled },
  });
  trail.startPruning();
}
