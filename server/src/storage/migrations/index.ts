/**
 * The numbered schema migrations, applied in order. Never edit a released migration: add the next
 * number. `PRAGMA user_version` records how many have been applied.
 */
import { initialSchema } from './001-initial-schema.js';
import { modelsSchema } from './002-models.js';

/** One schema step. */
export interface Migration {
  name: string;
  sql: string;
}

/** Every migration, oldest first; the database's `user_version` is the count applied. */
export const migrations: readonly Migration[] = [initialSchema, modelsSchema];
