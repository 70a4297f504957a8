/**
 * Lookups of launched models by uid (one per inference request), cached until the storage's change
 * feed reports a change of the `models` domain, so a model launched or stopped by any process is seen
 * by every process on its next request.
 */
import type { Epochs, Storage } from '../storage/port/index.js';
import { modelFromStore, type ModelRecord } from './model-records.js';

/** The most uids the cache holds before it starts over. */
const CACHE_LIMIT = 10_000;

/** A change-feed-checked cache of `storage.models.findByUid`. */
export class ModelCache {
  readonly #storage: Storage;
  readonly #cache = new Map<string, ModelRecord | null>();
  #epoch = Number.NaN;

  constructor(storage: Storage) {
    this.#storage = storage;
    storage.changes.onChange((domain) => {
      if (domain !== 'models') return;
      this.#epoch = Number.NaN;
      this.#cache.clear();
    });
  }

  /**
   * The model `uid`, from the cache while nothing changed. Records are shared: do not mutate them.
   *
   * @param given - the change feed's epochs the request pipeline read once for this request
   *   (`request.epochs`); without them the cache reads the feed itself (on PostgreSQL one more round
   *   trip). Either reading started after the request arrived, so a model stopped before it is seen.
   */
  async find(uid: string, given?: Epochs | Promise<Epochs>): Promise<ModelRecord | null> {
    const epochs = given ?? this.#storage.changes.current();
    this.#checkEpoch(epochs instanceof Promise ? await epochs : epochs);
    const cached = this.#cache.get(uid);
    if (cached !== undefined) return cached;
    const epoch = this.#epoch;
    const record = modelFromStore(await this.#storage.models.findByUid(uid));
    // Remembered only when no change was reported meanwhile.
    if (epoch === this.#epoch) this.#cache.set(uid, record);
    return record;
  }

  #checkEpoch(epochs: Epochs): void {
    if (epochs.models !== this.#epoch || this.#cache.size >= CACHE_LIMIT) {
      this.#cache.clear();
      this.#epoch = epochs.models;
    }
  }
}
