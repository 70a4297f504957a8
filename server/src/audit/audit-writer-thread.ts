/**
 * The audit writer thread: receives batches of records (their canonical encodings, one per line)
 * from the server's main thread, and appends each batch to the database in one transaction on its
 * own connection, hashing as it goes. Keeping SQLite's inserts and the SHA-256 chain off the main
 * thread is what keeps the audit trail from slowing requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../storage/database.js';
import { AuditRepository } from '../storage/audit-repository.js';

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
const db = openDatabase(databasePath);
const repository = new AuditRepository(db);

parentPort?.on('message', (request: WriterRequest) => {
  let reply: WriterReply;
  try {
    repository.appendCanonical(request.lines.split('\n'));
    reply = { batch: request.batch };
  } catch (error) {
    reply = { batch: request.batch, error: error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error) };
  }
  parentPort?.postMessage(reply);
});
