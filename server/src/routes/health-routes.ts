/**
 * Liveness (`/status`), readiness (`/ready`), the authentication switch, the version, and what the
 * reference web UI reads before login.
 */
import type { Handlers } from '../contract/handlers.js';
import { changeListenerReport } from '../observability/change-listener-report.js';
import type { Services } from '../services/services.js';

/** The server's version as reported by `GET /status` and `GET /v1/cluster/version`. */
export const SERVICE_VERSION = '3.0.0';

/**
 * The health routes. `/status` is liveness: it answers while the process serves HTTP and touches no
 * database; on PostgreSQL it also reports the change-feed listener (from memory), and answers 200
 * whatever that state. `/ready` is readiness: it pings the database, and a `StorageUnavailableError` from the
 * ping becomes 503 `service_unavailable` with `Retry-After` in the error handler.
 */
export function healthHandlers(services: Services): Pick<Handlers, 'getStatus' | 'getReady' | 'getClusterAuth' | 'getUiConfig' | 'getClusterVersion'> {
  return {
    getStatus: () => {
      const listener = changeListenerReport(services.changes, services.clock);
      const changeListener =
        listener === null
          ? {}
          : { change_listener: { listening: listener.listening, reconnects: listener.reconnects, last_notification_age_seconds: listener.lastNotificationAgeSeconds } };
      return { status: 200, body: { status: 'ok', version: SERVICE_VERSION, ...changeListener } };
    },
    getReady: async ({ request }) => {
      // Polled every few seconds by every load balancer: not worth an audit record each time.
      request.audit.record = false;
      await services.health.ping();
      return { status: 200, body: { status: 'ready' } };
    },
    getClusterAuth: () => ({ status: 200, body: { auth: services.config.authEnabled } }),
    getUiConfig: ({ request }) => {
      // The reference server leaves it out of its audit log: the UI reads it on every page load.
      request.audit.record = false;
      return {
        status: 200,
        body: {
          grafana_url: null,
          grafana_datasource: null,
          grafana_alert_datasource: null,
          grafana_dashboard_uid: null,
          cluster_name: null,
          es_enabled: false,
          auth_advanced: services.config.authEnabled,
          oidc_enabled: false,
        },
      };
    },
    getClusterVersion: () => ({ status: 200, body: { version: SERVICE_VERSION, 'full-revisionid': null } }),
  };
}
