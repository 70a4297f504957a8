/**
 * The `node:diagnostics_channel` channels svc publishes, for tracers and tests that must see a step
 * of the request pipeline from inside the process. Publishing costs one `hasSubscribers` check while
 * nobody listens.
 */
import { channel } from 'node:diagnostics_channel';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';

/** The name of {@link requestAuthorisedChannel}. */
export const requestAuthorisedChannelName = 'svc:request:authorised';

/** A message of {@link requestAuthorisedChannel}. */
export interface RequestAuthorisedMessage {
  /** The request, before its body has been read. */
  readonly request: FastifyRequest;
  /** Who the request was authenticated as. */
  readonly principal: Principal;
  /** Whether the operation admitted the principal (false: it answers 403). */
  readonly admitted: boolean;
}

/**
 * Published once per request to a protected operation whose credential was authenticated, when its
 * authorisation was decided — before its body is read.
 */
export const requestAuthorisedChannel = channel(requestAuthorisedChannelName);

/** Publishes `message` on {@link requestAuthorisedChannel} when anyone listens. */
export function publishRequestAuthorised(message: RequestAuthorisedMessage): void {
  if (requestAuthorisedChannel.hasSubscribers) requestAuthorisedChannel.publish(message);
}
