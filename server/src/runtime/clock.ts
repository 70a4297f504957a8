/**
 * Time, injected: every service reads the time from the {@link Clock} it was given, so tests move a
 * {@link ManualClock} instead of sleeping.
 */

/** A source of the current time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real time. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until moved (tests). */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: number = Date.now()) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }
  /** Sets the clock to `ms`. */
  set(ms: number): void {
    this.#now = ms;
  }
}
