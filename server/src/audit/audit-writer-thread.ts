/**
 * The audit writer thread: receives batches of records (their canonical encodings, one per line)
 * from the server's main thread, and appends each batch to the database in one transaction on its
 * own connection (through the SQLite adapter's audit store), hashing as it goes. Keeping SQLite's inserts and the SHA-256 chain off the main
 * thread is what keeps the audit trail from slowing requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import { appendEncodings } from './audit-entry.js';

/** A batch from the main thread. */
export interface WriterRequest {
  batch: number;
  /** Canonical encodings joined by `\n` (JSON never holds a raw newline). */
  lines: string;
}

/** The answer for a batch. */
export interface WriterReply {
  batch: number;
  error?: string;
}

const { databasePath } = workerData as { databasePath: string };
const storage = SqliteStorage.open(databasePath);

parentPort?.on('message', (request: WriterRequest) => {
  appendEncodings(storage.audit, request.lines.split('\n')).then(
    () => parentPort?.postMessage({ batch: request.batch } satisfies WriterReply),
    (error: unknown) => {
      const reason = error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error);
      parentPort?.postMessage({ batch: request.batch, error: reason } satisfies WriterReply);
    },
  );
});
