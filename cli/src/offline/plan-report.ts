/**
 * The human-readable report of a migration plan (or of what was done).
 */
import type { MigrationPlan } from './migration-plan.js';
import { summarize } from './migration-plan.js';

/** The plan as lines of text; `done` switches the wording from "will" to "did". */
export function planReport(plan: MigrationPlan, done: boolean): string {
  const lines: string[] = [done ? 'Migrated:' : 'Plan (dry run: nothing was written):', '  users:'];
  for (const user of plan.users) {
    const permissions = user.permissions.length === 0 ? '(none)' : user.permissions.join(', ');
    let line = `    ${user.action.padEnd(10)} ${user.username}  permissions: ${permissions}`;
    if (user.action === 'keep') line += '  (exists: left as it is; --force makes the file win)';
    else if (user.mustChangePassword) line += `  must change password at next login (${user.passwordNote ?? 'policy'})`;
    if (user.usedLegacyNames && user.action !== 'keep') line += '  legacy permission names mapped';
    lines.push(line);
  }
  if (plan.users.length === 0) lines.push('    (none)');
  lines.push('  API keys:');
  for (const key of plan.keys) {
    lines.push(`    ${key.action.padEnd(10)} ${key.keyPrefix}… of ${key.username}${key.action === 'keep' ? '  (already stored)' : `  as "legacy key ${key.number}"`}`);
  }
  if (plan.keys.length === 0) lines.push('    (none)');
  const s = summarize(plan);
  lines.push(
    `${done ? 'Done' : 'Would do'}: users ${s.usersCreated} created, ${s.usersUpdated} updated, ${s.usersKept} kept; ` +
      `API keys ${s.keysCreated} created, ${s.keysReencrypted} re-encrypted, ${s.keysKept} kept.`,
  );
  return lines.join('\n') + '\n';
}

/** The plan as JSON-ready data (no plaintext key, no password). */
export function planData(plan: MigrationPlan, dryRun: boolean): unknown {
  return {
    dry_run: dryRun,
    users: plan.users.map((u) => ({ path: u.path, username: u.username, action: u.action, permissions: u.permissions, must_change_password: u.mustChangePassword })),
    api_keys: plan.keys.map((k) => ({ path: k.path, username: k.username, key_prefix: k.keyPrefix, action: k.action, name: `legacy key ${k.number}` })),
    summary: summarize(plan),
  };
}
