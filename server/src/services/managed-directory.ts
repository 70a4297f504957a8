/**
 * A directory under `SVC_HOME` whose entries an operator may list and delete: the model cache
 * (`{home}/cache`) and the per-model virtual environments (`{home}/virtualenv`). Deleting takes an
 * entry name, never a path: anything that would leave the directory (`..`, a separator, a NUL) or
 * names a symbolic link is refused, so nothing outside is ever touched.
 */
import { lstat, readdir, realpath, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ApiError } from '../errors.js';

/** One entry of a managed directory. */
export interface DirectoryEntry {
  name: string;
  path: string;
  size_bytes: number;
  modified_at: string;
}

/** Lists and deletes the entries of one directory. */
export class ManagedDirectory {
  readonly directory: string;
  readonly #label: string;

  /** @param label - what an entry is called in messages ("cache entry"). */
  constructor(directory: string, label: string) {
    this.directory = directory;
    this.#label = label;
  }

  /** The entries (directories and files, not symbolic links), by name; empty when the directory does not exist. */
  async list(): Promise<DirectoryEntry[]> {
    let names: string[];
    try {
      names = (await readdir(this.directory)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const entries: DirectoryEntry[] = [];
    for (const name of names) {
      const path = join(this.directory, name);
      const stats = await lstat(path).catch(() => null);
      if (stats === null || stats.isSymbolicLink()) continue;
      entries.push({ name, path, size_bytes: await sizeOf(path), modified_at: stats.mtime.toISOString() });
    }
    return entries;
  }

  /** Deletes the entry `name` and everything under it; returns the bytes freed. */
  async delete(name: string): Promise<number> {
    if (name === '.' || name === '..' || /[/\\\0]/.test(name) || name.trim() === '') {
      throw new ApiError('unsafe_path', `Refusing to delete ${JSON.stringify(name)}: give the name of an entry, not a path`, { param: 'model_name' });
    }
    const path = join(this.directory, name);
    const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (stats === null) throw new ApiError('entry_not_found', `No ${this.#label} named ${name}`);
    if (stats.isSymbolicLink()) {
      throw new ApiError('unsafe_path', `Refusing to delete ${name}: it is a symbolic link, and svc deletes only real entries of its own directory`, { param: 'model_name' });
    }
    const root = await realpath(this.directory);
    const resolved = await realpath(path);
    if (!resolved.startsWith(root + sep)) {
      throw new ApiError('unsafe_path', `Refusing to delete ${name}: it resolves outside its directory`, { param: 'model_name' });
    }
    const freed = await sizeOf(resolved);
    // rm removes symbolic links inside the tree, never what they point to.
    await rm(resolved, { recursive: true, force: true });
    return freed;
  }
}

/** Bytes under `path`, not following symbolic links. */
async function sizeOf(path: string): Promise<number> {
  const stats = await lstat(path).catch(() => null);
  if (stats === null || stats.isSymbolicLink()) return 0;
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) total += await sizeOf(join(path, name));
  return total;
}
