/** The storage port's errors, the only ones an adapter throws besides programming errors. */

/** The database cannot be used now (down, busy, locked, full, failing over): the request answers 503. */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** A schema problem at start-up: a schema newer than this server, a checksum mismatch, a migration lock not obtained. */
export class StorageSchemaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageSchemaError';
  }
}
