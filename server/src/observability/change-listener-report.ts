/**
 * What `/status` and `/metrics` say about this process's change-feed listener (PostgreSQL's LISTEN
 * connection, the early half of cache invalidation): whether it is connected, how often it had to
 * reconnect, and how long ago the last notification arrived, measured on the server's clock.
 */
import type { Clock } from '../runtime/clock.js';
import type { ChangeFeed } from '../storage/port/index.js';

/** The listener's state as reported. */
export interface ChangeListenerReport {
  listening: boolean;
  reconnects: number;
  /** Seconds since the last notification arrived; null before the first. */
  lastNotificationAgeSeconds: number | null;
}

/**
 * The report of `changes`' listener now, or null where there is none (SQLite).
 *
 * @example
 * changeListenerReport(storage.changes, clock); // { listening: true, reconnects: 0, lastNotificationAgeSeconds: 12.5 }
 */
export function changeListenerReport(changes: Pick<ChangeFeed, 'listenerStatus'>, clock: Clock): ChangeListenerReport | null {
  const status = changes.listenerStatus();
  if (status === null) return null;
  const at = status.lastNotificationAt;
  return {
    listening: status.listening,
    reconnects: status.reconnects,
    lastNotificationAgeSeconds: at === null ? null : Math.max(0, clock.now() - at) / 1000,
  };
}
