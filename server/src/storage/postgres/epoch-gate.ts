/**
 * The check that cannot be missed: every {@link EpochGate.current} call is answered by an epoch read
 * that *started after the call*, so a commit that completed before a request arrived is always seen,
 * whatever happened to the notifications. Reads are coalesced: at most one is in flight, and every
 * call that arrives meanwhile waits for the single read issued when it returns (so one round trip
 * serves a burst of requests). This is the same guarantee SQLite's `PRAGMA data_version` gives one
 * host, across hosts.
 */
import type { Epochs } from '../port/index.js';

/** Reads the epochs; rejects with `StorageUnavailableError` when it cannot. */
export type EpochRead = () => Promise<Epochs>;

/** Coalesced epoch reads, each started after the calls it answers. */
export class EpochGate {
  readonly #read: EpochRead;
  /** The read in flight (it may have started before a new call: such a call waits for the next). */
  #inFlight: Promise<Epochs> | null = null;
  /** The read that starts when the one in flight returns, shared by every call that arrived meanwhile. */
  #queued: Promise<Epochs> | null = null;

  constructor(read: EpochRead) {
    this.#read = read;
  }

  /** The epochs as of a moment after this call began. */
  current(): Promise<Epochs> {
    const inFlight = this.#inFlight;
    if (inFlight === null) return this.#begin();
    this.#queued ??= inFlight.then(
      () => this.#next(),
      () => this.#next(),
    );
    return this.#queued;
  }

  #next(): Promise<Epochs> {
    this.#queued = null;
    return this.#begin();
  }

  #begin(): Promise<Epochs> {
    const read = this.#read();
    this.#inFlight = read;
    const settle = (): void => {
      if (this.#inFlight === read) this.#inFlight = null;
    };
    read.then(settle, settle);
    return read;
  }
}
