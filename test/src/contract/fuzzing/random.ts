/**
 * A small seeded pseudo-random generator (mulberry32) for reproducible fuzzing, with the awkward
 * strings fuzzers like to send. No dependency: determinism and a few helpers are all it needs.
 */
import type { Json } from './schemas.js';


/** mulberry32: a seeded, deterministic generator with helpers for strings and JSON values. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(bound: number): number {
    return Math.floor(this.next() * bound);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  string(maxLength: number): string {
    const pools = [
      () => String.fromCharCode(0x20 + this.int(0x5f)), // printable ASCII
      () => String.fromCharCode(this.int(0x20)), // control characters
      () => String.fromCharCode(0x80 + this.int(0x780)), // Latin and beyond
      () => String.fromCodePoint(0x1f600 + this.int(0x50)), // astral (surrogate pairs)
      () => String.fromCharCode(0xd800 + this.int(0x800)), // a lone surrogate
      () => this.pick(['\u202e', '\u200b', '\ufeff', '\\', '"', "'", '%', '/', '..']),
    ];
    let text = '';
    const length = this.int(maxLength + 1);
    while (text.length < length) text += this.pick(pools)();
    return text;
  }
  json(depth: number): Json {
    const kind = this.int(depth > 0 ? 9 : 7);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e-308, Number.MAX_SAFE_INTEGER]);
      case 3:
      case 4:
        return this.pick(weirdStrings);
      case 5:
      case 6:
        return this.string(40);
      case 7:
        return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
      default:
        return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.pick([...weirdStrings, 'enabled', 'permissions', 'name']), this.json(depth - 1)]));
    }
  }
}

/** Strings that have broken parsers, validators, logs and databases before. */
export const weirdStrings: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '😀😀😀',
  '\u202eevil',
  'line\r\nX-Injected: 1',
  "' OR '1'='1' --",
  '"; DROP TABLE users; --',
  '${jndi:ldap://127.0.0.1/x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  'null',
  'admin',
  'models:list',
  'sk-svc-' + 'A'.repeat(49),
  'a'.repeat(5000),
  '__proto__',
  'constructor',
  '2099-01-01T00:00:00Z',
];
