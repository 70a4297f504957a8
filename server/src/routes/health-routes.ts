/**
 * Health, the authentication switch, the version, and what the reference web UI reads before login.
 */
import type { Handlers } from '../contract/handlers.js';
import type { Services } from '../services/services.js';

/** The server's version as reported by `GET /status` and `GET /v1/cluster/version`. */
export const SERVICE_VERSION = '3.0.0';

export function healthHandlers(services: Services): Pick<Handlers, 'getStatus' | 'getClusterAuth' | 'getUiConfig' | 'getClusterVersion'> {
  return {
    getStatus: async () => {
      await services.health.ping();
      return { status: 200, body: { status: 'ok', version: SERVICE_VERSION } };
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
