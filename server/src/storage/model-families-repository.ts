/**
 * Registered (custom) model families. The only module that writes SQL for `model_families`.
 * Built-in families are not stored: they live in code (`models/builtin-families.ts`).
 */
import type { Statement } from 'better-sqlite3';
import type { Database } from './database.js';
import type { ModelAbility, ModelType } from './models-repository.js';

/** A model family: what a launched model of it can do. */
export interface ModelFamilyRecord {
  modelName: string;
  modelType: ModelType;
  abilities: ModelAbility[];
  requiresSystemMessageFirst: boolean;
  dimensions: number | null;
  description: string | null;
  /** The registered definition as given (JSON). */
  definition: string;
  createdBy: string | null;
  createdAt: number;
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

/** Reads and writes registered model families. */
export class ModelFamiliesRepository {
  readonly #find: Statement<[string, string], FamilyRow>;
  readonly #byType: Statement<[string], FamilyRow>;
  readonly #insert: Statement<[FamilyRow]>;
  readonly #delete: Statement<[string, string]>;

  constructor(db: Database) {
    this.#find = db.prepare('SELECT * FROM model_families WHERE model_type = ? AND model_name = ?');
    this.#byType = db.prepare('SELECT * FROM model_families WHERE model_type = ? ORDER BY model_name');
    this.#insert = db.prepare(
      `INSERT INTO model_families (model_type, model_name, model_ability, requires_system_message_first, dimensions, description, definition, created_by, created_at)
       VALUES (@model_type, @model_name, @model_ability, @requires_system_message_first, @dimensions, @description, @definition, @created_by, @created_at)`,
    );
    this.#delete = db.prepare('DELETE FROM model_families WHERE model_type = ? AND model_name = ?');
  }

  find(modelType: ModelType, modelName: string): ModelFamilyRecord | null {
    const row = this.#find.get(modelType, modelName);
    return row === undefined ? null : toRecord(row);
  }

  /** The registered families of a type, by name. */
  listByType(modelType: ModelType): ModelFamilyRecord[] {
    return this.#byType.all(modelType).map(toRecord);
  }

  /** Stores a family; throws SQLITE_CONSTRAINT_PRIMARYKEY when the name is taken for the type. */
  insert(family: ModelFamilyRecord): void {
    this.#insert.run({
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
  }

  /** True when the family existed. */
  delete(modelType: ModelType, modelName: string): boolean {
    return this.#delete.run(modelType, modelName).changes > 0;
  }
}

function toRecord(row: FamilyRow): ModelFamilyRecord {
  return {
    modelName: row.model_name,
    modelType: row.model_type as ModelType,
    abilities: JSON.parse(row.model_ability) as ModelAbility[],
    requiresSystemMessageFirst: row.requires_system_message_first === 1,
    dimensions: row.dimensions,
    description: row.description,
    definition: row.definition,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}
