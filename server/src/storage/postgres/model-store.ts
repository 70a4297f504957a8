/** Launched models and registered model families on PostgreSQL. */
import type { ModelFamilyRecord, ModelFamilyStore, ModelRecord, ModelStore, RowLock } from '../port/index.js';
import type { Executor } from './executor.js';

interface ModelRow {
  uid: string;
  model_name: string;
  model_type: string;
  model_engine: 'builtin' | 'upstream';
  model_ability: string;
  requires_system_message_first: boolean;
  dimensions: number | null;
  upstream_base_url: string | null;
  upstream_model: string | null;
  upstream_key_ciphertext: Buffer | null;
  upstream_key_encryption_id: string | null;
  launched_by: string | null;
  created_at: number;
}

interface FamilyRow {
  model_type: string;
  model_name: string;
  model_ability: string;
  requires_system_message_first: boolean;
  dimensions: number | null;
  description: string | null;
  definition: string;
  created_by: string | null;
  created_at: number;
}

const toModel = (row: ModelRow): ModelRecord => ({
  uid: row.uid,
  modelName: row.model_name,
  modelType: row.model_type,
  engine: row.model_engine,
  abilities: JSON.parse(row.model_ability) as string[],
  requiresSystemMessageFirst: row.requires_system_message_first,
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
});

const toFamily = (row: FamilyRow): ModelFamilyRecord => ({
  modelName: row.model_name,
  modelType: row.model_type,
  abilities: JSON.parse(row.model_ability) as string[],
  requiresSystemMessageFirst: row.requires_system_message_first,
  dimensions: row.dimensions,
  description: row.description,
  definition: row.definition,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

/** {@link ModelStore} on PostgreSQL. Writes bump the `models` epoch (trigger of migration 004). */
export class PostgresModelStore implements ModelStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async findByUid(uid: string): Promise<ModelRecord | null> {
    const row = await this.#sql.first<ModelRow>('SELECT * FROM models WHERE uid = $1', [uid], { name: 'svc-model-by-uid', lookup: true });
    return row === null ? null : toModel(row);
  }

  async list(): Promise<ModelRecord[]> {
    return (await this.#sql.rows<ModelRow>('SELECT * FROM models ORDER BY created_at, uid COLLATE "C"')).map(toModel);
  }

  async countByFamily(modelType: string, modelName: string): Promise<number> {
    const row = await this.#sql.first<{ count: number }>('SELECT count(*) AS count FROM models WHERE model_type = $1 AND model_name = $2', [modelType, modelName], {
      lookup: true,
    });
    return row?.count ?? 0;
  }

  async insert(model: ModelRecord): Promise<'created' | 'uid_taken'> {
    const inserted = await this.#sql.run(
      `INSERT INTO models (uid, model_name, model_type, model_engine, model_ability, requires_system_message_first, dimensions,
         upstream_base_url, upstream_model, upstream_key_ciphertext, upstream_key_encryption_id, launched_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (uid) DO NOTHING`,
      [
        model.uid,
        model.modelName,
        model.modelType,
        model.engine,
        JSON.stringify(model.abilities),
        model.requiresSystemMessageFirst,
        model.dimensions,
        model.upstream?.baseUrl ?? null,
        model.upstream?.model ?? null,
        model.upstream?.keyCiphertext ?? null,
        model.upstream?.keyEncryptionId ?? null,
        model.launchedBy,
        model.createdAt,
      ],
    );
    return inserted === 1 ? 'created' : 'uid_taken';
  }

  async delete(uid: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM models WHERE uid = $1', [uid], { lookup: true })) > 0;
  }
}

/** {@link ModelFamilyStore} on PostgreSQL. */
export class PostgresModelFamilyStore implements ModelFamilyStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  /** With a row lock in a transaction: `share` keeps the family from being unregistered, `update` from being used. */
  async find(modelType: string, modelName: string, options?: RowLock): Promise<ModelFamilyRecord | null> {
    const row = await this.#sql.first<FamilyRow>(`SELECT * FROM model_families WHERE model_type = $1 AND model_name = $2${this.#sql.lockClause(options)}`, [modelType, modelName], {
      lookup: true,
    });
    return row === null ? null : toFamily(row);
  }

  async listByType(modelType: string): Promise<ModelFamilyRecord[]> {
    return (await this.#sql.rows<FamilyRow>('SELECT * FROM model_families WHERE model_type = $1 ORDER BY model_name COLLATE "C"', [modelType], { lookup: true })).map(toFamily);
  }

  async insert(family: ModelFamilyRecord): Promise<'created' | 'name_taken'> {
    const inserted = await this.#sql.run(
      `INSERT INTO model_families (model_type, model_name, model_ability, requires_system_message_first, dimensions, description, definition, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (model_type, model_name) DO NOTHING`,
      [
        family.modelType,
        family.modelName,
        JSON.stringify(family.abilities),
        family.requiresSystemMessageFirst,
        family.dimensions,
        family.description,
        family.definition,
        family.createdBy,
        family.createdAt,
      ],
    );
    return inserted === 1 ? 'created' : 'name_taken';
  }

  async delete(modelType: string, modelName: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM model_families WHERE model_type = $1 AND model_name = $2', [modelType, modelName], { lookup: true })) > 0;
  }
}
