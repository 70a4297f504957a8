/**
 * Who ran an offline tool, for its audit event: the operating-system account and the host. An
 * offline tool has no svc login, so this is the only actor its record can name.
 */
import { hostname, userInfo } from 'node:os';

/** The OS account (null when the system cannot name it, e.g. a uid without a passwd entry) and the host. */
export function operatorDetails(): { os_user: string | null; host: string } {
  let user: string | null;
  try {
    user = userInfo().username;
  } catch {
    user = null;
  }
  return { os_user: user, host: hostname() };
}
