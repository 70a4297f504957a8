/**
 * `svc-migrate-storage`'s work: plans, copies and verifies the move of a deployment's whole state
 * from one storage (the SQLite file) to another (PostgreSQL) through the storage port's bulk
 * transfer. Rows are copied as stored (ids, hashes, ciphertexts, times), so keys stay revealable under
 * the same encryption key and the audit chain verifies on the target as on the source. See
 * `docs/deployment.md` ("Moving from SQLite to PostgreSQL").
 */
import { primaryKeyOf, StorageUnavailableError, transferTables, verifyAuditChainOffline, type Storage, type TransferTable } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';

/** Rows read (and written) at a time. */
const PAGE_SIZE = 1000;

/** What happens to one table. */
export interface TableMigration {
  table: string;
  /** Rows in the source. */
  source: number;
  /** Rows in the target before the run. */
  target_before: number;
  /** Source rows whose primary key the target lacks: what a run copies. */
  to_copy: number;
  /** Rows copied by this run (0 on a dry run). */
  copied: number;
  /** Rows in the target after the run (its `target_before` on a dry run). */
  target_after: number;
}

/** How a run ended. */
export type MigrationOutcome =
  /** Rows were copied and verified. */
  | 'copied'
  /** The target already held every row of the source: nothing was written. */
  | 'up_to_date'
  /** A dry run that found rows to copy: nothing was written. */
  | 'would_copy';

/** What {@link migrateStorage} did (or would do). */
export interface StorageMigrationReport {
  outcome: MigrationOutcome;
  dry_run: boolean;
  tables: TableMigration[];
  /** The audit chain on the source (before) and on the target (after the copy; before it on a dry run). */
  audit_chain: { source: ChainSummary; target: ChainSummary };
}

/** One audit chain's verification, in short. */
export interface ChainSummary {
  ok: boolean;
  checked: number;
  head: string | null;
}

/** How {@link migrateStorage} runs. */
export interface StorageMigrationOptions {
  /** Plan and report only; nothing is written. */
  dryRun: boolean;
  /** Merge into a target that already holds rows (rows whose primary key exists are left as they are). */
  intoNonEmpty: boolean;
}

/** What the target holds of one table: its primary keys (and, for the audit log, each record's hash). */
interface TargetTable {
  keys: Set<string>;
  hashes: Map<number, string>;
}

async function readTarget(target: Storage | null, table: TransferTable): Promise<TargetTable> {
  const keys = new Set<string>();
  const hashes = new Map<number, string>();
  if (target === null) return { keys, hashes };
  for await (const page of target.transfer.pages(table, PAGE_SIZE)) {
    for (const row of page) {
      keys.add(primaryKeyOf(table, row));
      if (table.name === 'audit_log') hashes.set(Number(row['id']), String(row['hash']));
    }
  }
  return { keys, hashes };
}

/** How many source rows the target lacks, and the first audit record whose id the target holds with another hash. */
async function compare(source: Storage, table: TransferTable, held: TargetTable): Promise<{ missing: number; divergentAuditId: number | null }> {
  let missing = 0;
  let divergentAuditId: number | null = null;
  for await (const page of source.transfer.pages(table, PAGE_SIZE)) {
    for (const row of page) {
      if (!held.keys.has(primaryKeyOf(table, row))) {
        missing += 1;
      } else if (table.name === 'audit_log' && divergentAuditId === null && held.hashes.get(Number(row['id'])) !== String(row['hash'])) {
        divergentAuditId = Number(row['id']);
      }
    }
  }
  return { missing, divergentAuditId };
}

async function chainOf(storage: Storage | null): Promise<ChainSummary & { firstBroken: number | null }> {
  if (storage === null) return { ok: true, checked: 0, head: null, firstBroken: null };
  const verification = await verifyAuditChainOffline(storage);
  return { ok: verification.ok, checked: verification.checked, head: verification.head_hash, firstBroken: verification.first_broken_id };
}

const summary = ({ ok, checked, head }: ChainSummary): ChainSummary => ({ ok, checked, head });

/**
 * Copies every row of `source` that `target` lacks, then verifies: per table, that the target now
 * holds every source row (counts on both sides), and the audit chain on the target.
 *
 * `target` null is a database without svc's schema yet, which a dry run reads as empty.
 *
 * @throws {CliError} when the source's audit chain is broken, the target is not empty (without
 *   `intoNonEmpty`), the two audit trails differ, or the verification fails.
 */
export async function migrateStorage(source: Storage, target: Storage | null, options: StorageMigrationOptions): Promise<StorageMigrationReport> {
  const sourceChain = await chainOf(source);
  if (!sourceChain.ok) {
    throw new CliError(
      ExitCode.integrity,
      `the source's audit chain is broken at record ${sourceChain.firstBroken ?? '?'} (svc audit verify tells more); a copy could not be told apart from tampering, so nothing was copied`,
    );
  }
  const plans: TableMigration[] = [];
  let divergentAuditId: number | null = null;
  for (const table of transferTables) {
    const held = await readTarget(target, table);
    const compared = await compare(source, table, held);
    divergentAuditId ??= compared.divergentAuditId;
    const sourceCount = await source.transfer.count(table);
    plans.push({ table: table.name, source: sourceCount, target_before: held.keys.size, to_copy: compared.missing, copied: 0, target_after: held.keys.size });
  }
  const targetRows = plans.reduce((sum, plan) => sum + plan.target_before, 0);
  const missing = plans.reduce((sum, plan) => sum + plan.to_copy, 0);
  const targetChain = await chainOf(target);
  const report = (outcome: MigrationOutcome, chain: ChainSummary): StorageMigrationReport => ({
    outcome,
    dry_run: options.dryRun,
    tables: plans,
    audit_chain: { source: summary(sourceChain), target: summary(chain) },
  });
  if (missing === 0 && divergentAuditId === null) return report('up_to_date', targetChain);
  if (targetRows > 0 && !options.intoNonEmpty) {
    const held = plans.filter((plan) => plan.target_before > 0).map((plan) => `${plan.table} ${plan.target_before}`);
    throw new CliError(
      ExitCode.notFoundOrConflict,
      `the target database is not empty (${held.join(', ')}); pass --into-non-empty to merge into it (existing rows are kept as they are); nothing was changed`,
    );
  }
  if (divergentAuditId !== null) {
    // Records are copied with their ids: a target record of the same id but another hash is another chain.
    throw new CliError(
      ExitCode.notFoundOrConflict,
      `the target's audit trail is not the source's (record ${divergentAuditId} differs): two audit chains cannot be merged; nothing was changed`,
    );
  }
  if (options.dryRun) return report('would_copy', targetChain);
  if (target === null) throw new Error('a run that copies needs a target with svc\'s schema (open it with openStorage, which migrates)');

  let copied: Map<string, number>;
  try {
    copied = await target.transfer.importing(async (importer) => {
      const counts = new Map<string, number>();
      for (const table of transferTables) {
        let inserted = 0;
        for await (const page of source.transfer.pages(table, PAGE_SIZE)) inserted += await importer.insertMissing(table, page);
        counts.set(table.name, inserted);
      }
      return counts;
    });
  } catch (error) {
    if (error instanceof StorageUnavailableError || !(error instanceof Error)) throw error;
    // A constraint of the target refused a row (a username another account holds): the import rolled back.
    throw new CliError(ExitCode.notFoundOrConflict, `a source row conflicts with the target (${error.message}); nothing was changed`);
  }
  return report('copied', await verifyCopy(source, target, plans, copied));
}

/** Counts both sides of every table and verifies the target's audit chain; fills in the report. */
async function verifyCopy(source: Storage, target: Storage, plans: TableMigration[], copied: ReadonlyMap<string, number>): Promise<ChainSummary> {
  const short: string[] = [];
  for (const [index, table] of transferTables.entries()) {
    const plan = plans[index];
    if (plan === undefined) continue;
    plan.copied = copied.get(table.name) ?? 0;
    plan.source = await source.transfer.count(table);
    plan.target_after = await target.transfer.count(table);
    const held = await readTarget(target, table);
    let absent = 0;
    for await (const page of source.transfer.pages(table, PAGE_SIZE)) absent += page.filter((row) => !held.keys.has(primaryKeyOf(table, row))).length;
    if (absent > 0 || plan.target_after < plan.source) short.push(`${table.name} (${absent} of ${plan.source} source rows missing)`);
  }
  if (short.length > 0) throw new CliError(ExitCode.integrity, `verification failed after the copy: ${short.join(', ')}`);
  const chain = await chainOf(target);
  if (!chain.ok) {
    throw new CliError(ExitCode.integrity, `verification failed after the copy: the audit chain on the target is broken at record ${chain.firstBroken ?? '?'}`);
  }
  return summary(chain);
}

/** The report as a table, with a closing line saying what happened. */
export function describeMigration(report: StorageMigrationReport): { headings: string[]; rows: string[][]; closing: string } {
  const headings = ['table', 'source', 'target before', report.dry_run ? 'would copy' : 'copied', 'target after'];
  const rows = report.tables.map((table) => [
    table.table,
    String(table.source),
    String(table.target_before),
    String(report.dry_run ? table.to_copy : table.copied),
    String(table.target_after),
  ]);
  const total = report.tables.reduce((sum, table) => sum + table.to_copy, 0);
  const chain = report.audit_chain.target;
  const closing =
    report.outcome === 'up_to_date'
      ? 'Nothing to copy: the target already holds every row of the source. Nothing was changed.'
      : report.outcome === 'would_copy'
        ? `Dry run: would copy ${total} row${total === 1 ? '' : 's'}. Nothing was changed.`
        : `Copied ${report.tables.reduce((sum, table) => sum + table.copied, 0)} rows. Verified: every source row is on the target; the audit chain on the target verifies (${chain.checked} records${chain.head === null ? '' : `, head ${chain.head.slice(0, 12)}…`}).`;
  return { headings, rows, closing };
}
