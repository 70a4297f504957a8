/**
 * Audit records in words: "Viewed own account" for `getMe`, "IP banned" for `ip_banned`. The map of
 * operations is typed by the contract's operation ids, so a new operation is a compile error here
 * until it has its words. Also the page-load calls the audit center hides by default.
 */
import type { AuditRecord, operations } from '@svc/sdk';

/** Every operation of the contract, as what the caller did (past tense, as a trail reads). */
export const operationWords: Record<keyof operations, string> = {
  getStatus: 'Checked the server status',
  getReady: 'Checked whether the server is ready',
  getClusterAuth: 'Checked whether authentication is on',
  getSetupStatus: 'Checked the setup status',
  createFirstAdmin: 'Created the first administrator',
  login: 'Logged in',
  loginLegacy: 'Logged in (compatibility route)',
  refreshTokens: 'Refreshed tokens',
  logout: 'Logged out',
  startBrowserSession: 'Logged in (browser)',
  refreshBrowserSession: 'Resumed the browser session',
  endBrowserSession: 'Logged out (browser)',
  getMe: 'Viewed own account',
  changeOwnPassword: 'Changed own password',
  listUsers: 'Listed users',
  createUser: 'Created a user',
  getUser: 'Viewed a user',
  updateUser: 'Updated a user',
  deleteUser: 'Deleted a user',
  setUserPassword: "Set a user's password",
  getUserPermissions: "Viewed a user's permissions",
  setUserPermissions: "Changed a user's permissions",
  listApiKeys: 'Listed API keys',
  createApiKey: 'Created an API key',
  getApiKey: 'Viewed an API key',
  updateApiKey: 'Updated an API key',
  deleteApiKey: 'Deleted an API key',
  revealApiKey: 'Revealed an API key',
  getApiKeyModelPermissions: "Viewed a key's model restrictions",
  setApiKeyModelPermissions: "Changed a key's model restrictions",
  listModels: 'Listed running models',
  launchModel: 'Launched a model',
  getModel: 'Viewed a running model',
  stopModel: 'Stopped a model',
  listModelRegistrations: 'Listed model families',
  registerModel: 'Registered a model family',
  unregisterModel: 'Unregistered a model family',
  createChatCompletion: 'Chatted with a model',
  createCompletion: 'Completed text with a model',
  createEmbedding: 'Embedded text with a model',
  listCachedModels: 'Listed cached model files',
  deleteCachedModel: "Deleted a model's cached files",
  listVirtualenvs: 'Listed virtual environments',
  deleteVirtualenv: 'Deleted a virtual environment',
  getClusterLogs: 'Read the server log',
  getMetrics: 'Read the metrics',
  getSecuritySettings: 'Viewed the security settings',
  updateSecuritySettings: 'Changed the security settings',
  listBannedIps: 'Listed banned IPs',
  unbanIp: 'Unbanned an IP',
  unbanAllIps: 'Unbanned every IP',
  listBannedKeys: 'Listed banned keys',
  unbanKey: 'Unbanned a key',
  unbanAllKeys: 'Unbanned every key',
  listLockedAccounts: 'Listed locked accounts',
  unlockAccount: 'Unlocked an account',
  unlockAllAccounts: 'Unlocked every account',
  searchAudit: 'Searched the audit trail',
  getAuditFilterOptions: 'Listed audit filter choices',
  exportAudit: 'Exported the audit trail',
  verifyAudit: 'Verified the audit chain',
  getUsage: 'Viewed usage',
  getUiConfig: 'Read the UI configuration',
  getClusterVersion: 'Checked the server version',
  getOidcLoginOptions: 'Checked the single sign-on options',
  startOidcLogin: 'Started a single sign-on',
  completeOidcLogin: 'Signed in with single sign-on',
  exchangeOidcCliCode: 'Signed in with single sign-on (CLI)',
  startOidcDeviceLogin: 'Started a device sign-in',
  completeOidcDeviceLogin: 'Completed a device sign-in',
  startOidcLogout: 'Signed out at the identity provider',
  getOidcSettings: 'Viewed the single sign-on settings',
  listApiKeyBans: "Listed a key's bans",
  unbanApiKey: 'Unbanned a key from one address',
  unbanApiKeyEverywhere: 'Unbanned a key everywhere',
  listModelInstances: 'Listed model instances',
  getModelLaunchProgress: "Checked a model's launch progress",
  getModelRegistration: 'Viewed a model family',
};

/** Events that are not API calls, by event type. */
const eventWords: Record<string, string> = {
  ip_banned: 'IP banned',
  key_banned: 'Key banned',
  account_locked: 'Account locked',
  ip_unbanned: 'IP unbanned',
  key_unbanned: 'Key unbanned',
  account_unlocked: 'Account unlocked',
  startup: 'Server started',
  audit_pruned: 'Old audit records pruned',
  offline_password_reset: 'Password reset offline',
};

/**
 * The calls the web UI makes on every page load (setup status, session resume, who am I). Still
 * recorded; the audit center leaves them out unless asked (`exclude_action`).
 */
export const pageLoadActions: readonly (keyof operations)[] = ['getSetupStatus', 'refreshBrowserSession', 'getMe'];

/** `unknown_route` and other snake_case or dotted names as a sentence: "Unknown route". */
function humanize(name: string): string {
  const words = name.replace(/[._]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();
  return words === '' ? name : words[0]?.toUpperCase() + words.slice(1);
}

/** What a record says happened, in words. */
export function describeAction(record: Pick<AuditRecord, 'event_type' | 'action'>): string {
  if (record.event_type === 'api_call') {
    if (record.action === 'unknown_route') return 'Called an unknown route';
    return Object.hasOwn(operationWords, record.action) ? operationWords[record.action as keyof operations] : humanize(record.action);
  }
  return eventWords[record.event_type] ?? humanize(record.event_type);
}
