/**
 * Launched models and registered (custom) model families on SQLite. The only module that writes SQL
 * for `models` and `model_families`. Nothing is cached here: `ModelService` caches lookups by uid.
 */
import type { ModelFamilyRecord, ModelFamilyStore, ModelRecord, ModelStore } from '../port/models.js';
import { attempt, sqliteCode } from './errors.js';
import { statement, type Connections } from './statements.js';

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

interface FamilyRow {
  model_type: string;
  model_name: string;
  model_ability: string;
  requires_system_message_first: number;
  dimensions: number | null;
  description: string | null;
  definition: string;
  created_by: string | null;
  created_at: number;
}

const isPrimaryKeyConflict = (error: unknown) => sqliteCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY';

/** Reads and writes launched models. */
export class SqliteModelStore implements ModelStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  findByUid(uid: string): Promise<ModelRecord | null> {
    return attempt(() => {
      const row = statement<[string], ModelRow>(this.#c.read, 'SELECT * FROM models WHERE uid = ?').get(uid);
      return row === undefined ? null : toModel(row);
    });
  }

  list(): Promise<ModelRecord[]> {
    return attempt(() => statement<[], ModelRow>(this.#c.read, 'SELECT * FROM models ORDER BY created_at, uid').all().map(toModel));
  }

  countByFamily(modelType: string, modelName: string): Promise<number> {
    return attempt(
      () => (statement<[string, string], number>(this.#c.read, 'SELECT count(*) FROM models WHERE model_type = ? AND model_name = ?').pluck().get(modelType, modelName) as number | undefined) ?? 0,
    );
  }

  insert(model: ModelRecord): Promise<'created' | 'uid_taken'> {
    return this.#c.gate.write(() => {
      try {
        statement(
          this.#c.write,
          `INSERT INTO models (uid, model_name, model_type, model_engine, model_ability, requires_system_message_first, dimensions,
             upstream_base_url, upstream_model, upstream_key_ciphertext, upstream_key_encryption_id, launched_by, created_at)
           VALUES (@uid, @model_name, @model_type, @model_engine, @model_ability, @requires_system_message_first, @dimensions,
             @upstream_base_url, @upstream_model, @upstream_key_ciphertext, @upstream_key_encryption_id, @launched_by, @created_at)`,
        ).run({
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
      } catch (error) {
        if (isPrimaryKeyConflict(error)) return 'uid_taken';
        throw error;
      }
      return 'created';
    });
  }

  delete(uid: string): Promise<boolean> {
    return this.#c.gate.write(() => statement(this.#c.write, 'DELETE FROM models WHERE uid = ?').run(uid).changes > 0);
  }
}

/** Reads and writes registered model families. */
export class SqliteModelFamilyStore implements ModelFamilyStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  find(modelType: string, modelName: string): Promise<ModelFamilyRecord | null> {
    return attempt(() => {
      const row = statement<[string, string], FamilyRow>(this.#c.read, 'SELECT * FROM model_families WHERE model_type = ? AND model_name = ?').get(modelType, modelName);
      return row === undefined ? null : toFamily(row);
    });
  }

  listByType(modelType: string): Promise<ModelFamilyRecord[]> {
    return attempt(() => statement<[string], FamilyRow>(this.#c.read, 'SELECT * FROM model_families WHERE model_type = ? ORDER BY model_name').all(modelType).map(toFamily));
  }

  insert(family: ModelFamilyRecord): Promise<'created' | 'name_taken'> {
    return this.#c.gate.write(() => {
      try {
        statement(
          this.#c.write,
          `INSERT INTO model_families (model_type, model_name, model_ability, requires_system_message_first, dimensions, description, definition, created_by, created_at)
           VALUES (@model_type, @model_name, @model_ability, @requires_system_message_first, @dimensions, @description, @definition, @created_by, @created_at)`,
        ).run({
          model_type: family.modelType,
          model_name: family.modelName,
          model_ability: JSON.stringify(family.abilities),
          requires_system_message_first: family.requiresSystemMessageFirst ? 1 : 0,
          dimensions: family.dimensions,
          description: family.description,
          definition: family.definition,
          created_by: family.createdBy,
          created_at: family.createdAt,
        });
      } catch (error) {
        if (isPrimaryKeyConflict(error)) return 'name_taken';
        throw error;
      }
      return 'created';
    });
  }

  delete(modelType: string, modelName: string): Promise<boolean> {
    return this.#c.gate.write(() => statement(this.#c.write, 'DELETE FROM model_families WHERE model_type = ? AND model_name = ?').run(modelType, modelName).changes > 0);
  }
}

function toModel(row: ModelRow): ModelRecord {
  return {
    uid: row.uid,
    modelName: row.model_name,
    modelType: row.model_type,
    engine: row.model_engine as ModelRecord['engine'],
    abilities: JSON.parse(row.model_ability) as string[],
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

function toFamily(row: FamilyRow): ModelFamilyRecord {
  return {
    modelName: row.model_name,
    modelType: row.model_type,
    abilities: JSON.parse(row.model_ability) as string[],
    requiresSystemMessageFirst: row.requires_system_message_first === 1,
    dimensions: row.dimensions,
    description: row.description,
    definition: row.definition,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}
