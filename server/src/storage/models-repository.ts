/**
 * Launched models. The only module that writes SQL for the `models` table. Lookups by uid (one per
 * inference request) are cached until the change tracker says the database changed, so a model
 * launched or stopped by any process is seen by every process on its next request.
 */
import type { Statement } from 'better-sqlite3';
import type { components } from '../generated/openapi.js';
import type { ChangeTracker } from './change-tracker.js';
import type { Database } from './database.js';

/** The most uids the lookup cache holds before it starts over. */
const CACHE_LIMIT = 10_000;

/** The kind of model. */
export type ModelType = components['schemas']['ModelType'];
/** What a model can do. */
export type ModelAbility = components['schemas']['ModelAbility'];
/** How a model is served. */
export type ModelEngine = components['schemas']['ModelEngine'];

/** Where an upstream model is served, with its key still encrypted. */
export interface StoredUpstream {
  baseUrl: string;
  model: string;
  keyCiphertext: Buffer | null;
  keyEncryptionId: string | null;
}

/** A launched model as stored. */
export interface ModelRecord {
  uid: string;
  modelName: string;
  modelType: ModelType;
  engine: ModelEngine;
  abilities: ModelAbility[];
  requiresSystemMessageFirst: boolean;
  dimensions: number | null;
  upstream: StoredUpstream | null;
  launchedBy: string | null;
  createdAt: number;
}

interface ModelRow {
  uid: string;
  model_name: string;
  model_type: string;
  model_engine: string;
  model_ability: string;
  requires_system_message_first: number;
  dimensions: number | null;
  upstream_base_url: string | null;
  upstream_model: string | null;
  upstream_key_ciphertext: Buffer | null;
  upstream_key_encryption_id: string | null;
  launched_by: string | null;
  created_at: number;
}

/** Reads and writes launched models. */
export class ModelsRepository {
  readonly #tracker: ChangeTracker;
  readonly #cache = new Map<string, ModelRecord | null>();
  #cacheEpoch = -1;
  readonly #byUid: Statement<[string], ModelRow>;
  readonly #all: Statement<[], ModelRow>;
  readonly #countByFamily: Statement<[string, string], number>;
  readonly #insert: Statement<[ModelRow]>;
  readonly #delete: Statement<[string]>;

  constructor(db: Database, tracker: ChangeTracker) {
    this.#tracker = tracker;
    this.#byUid = db.prepare('SELECT * FROM models WHERE uid = ?');
    this.#all = db.prepare('SELECT * FROM models ORDER BY created_at, uid');
    this.#countByFamily = db.prepare<[string, string], number>('SELECT count(*) FROM models WHERE model_type = ? AND model_name = ?').pluck();
    this.#insert = db.prepare(
      `INSERT INTO models (uid, model_name, model_type, model_engine, model_ability, requires_system_message_first, dimensions,
         upstream_base_url, upstream_model, upstream_key_ciphertext, upstream_key_encryption_id, launched_by, created_at)
       VALUES (@uid, @model_name, @model_type, @model_engine, @model_ability, @requires_system_message_first, @dimensions,
         @upstream_base_url, @upstream_model, @upstream_key_ciphertext, @upstream_key_encryption_id, @launched_by, @created_at)`,
    );
    this.#delete = db.prepare('DELETE FROM models WHERE uid = ?');
  }

  /**
   * The model `uid`, from the cache while nothing changed. Records are shared: do not mutate them.
   *
   * @param options.fresh - read the table whatever the cache holds (inside a write transaction).
   */
  findByUid(uid: string, options: { fresh?: boolean } = {}): ModelRecord | null {
    if (options.fresh === true) return this.#read(uid);
    const epoch = this.#tracker.epoch();
    if (epoch !== this.#cacheEpoch || this.#cache.size >= CACHE_LIMIT) {
      this.#cache.clear();
      this.#cacheEpoch = epoch;
    }
    const cached = this.#cache.get(uid);
    if (cached !== undefined) return cached;
    const record = this.#read(uid);
    this.#cache.set(uid, record);
    return record;
  }

  #read(uid: string): ModelRecord | null {
    const row = this.#byUid.get(uid);
    return row === undefined ? null : toRecord(row);
  }

  /** Every launched model, oldest first. */
  list(): ModelRecord[] {
    return this.#all.all().map(toRecord);
  }

  /** How many running models serve the family. */
  countByFamily(modelType: ModelType, modelName: string): number {
    return this.#countByFamily.get(modelType, modelName) ?? 0;
  }

  /** Stores a launched model; throws SQLITE_CONSTRAINT_PRIMARYKEY when the uid is taken. */
  insert(model: ModelRecord): void {
    this.#insert.run({
      uid: model.uid,
      model_name: model.modelName,
      model_type: model.modelType,
      model_engine: model.engine,
      model_ability: JSON.stringify(model.abilities),
      requires_system_message_first: model.requiresSystemMessageFirst ? 1 : 0,
      dimensions: model.dimensions,
      upstream_base_url: model.upstream?.baseUrl ?? null,
      upstream_model: model.upstream?.model ?? null,
      upstream_key_ciphertext: model.upstream?.keyCiphertext ?? null,
      upstream_key_encryption_id: model.upstream?.keyEncryptionId ?? null,
      launched_by: model.launchedBy,
      created_at: model.createdAt,
    });
    this.#tracker.markChanged();
  }

  /** Forgets a model; true when it existed. */
  delete(uid: string): boolean {
    const deleted = this.#delete.run(uid).changes > 0;
    this.#tracker.markChanged();
    return deleted;
  }
}

function toRecord(row: ModelRow): ModelRecord {
  return {
    uid: row.uid,
    modelName: row.model_name,
    modelType: row.model_type as ModelType,
    engine: row.model_engine as ModelEngine,
    abilities: JSON.parse(row.model_ability) as ModelAbility[],
    requiresSystemMessageFirst: row.requires_system_message_first === 1,
    dimensions: row.dimensions,
    upstream:
      row.upstream_base_url === null
        ? null
        : {
            baseUrl: row.upstream_base_url,
            model: row.upstream_model ?? row.model_name,
            keyCiphertext: row.upstream_key_ciphertext,
            keyEncryptionId: row.upstream_key_encryption_id,
          },
    launchedBy: row.launched_by,
    createdAt: row.created_at,
  };
}
