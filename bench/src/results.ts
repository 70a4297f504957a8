/**
 * The results table of `npm run bench`: every benchmark records its figures with {@link recordResult};
 * at the end the run prints them as one table and writes them to `bench/results.json`, a JSON array
 * with one object per line of the table (see `bench/README.md`, "results.json").
 */
import { writeFile } from 'node:fs/promises';

/** How a value is compared with its goal. */
export type Comparison = '>=' | '>' | '<=' | '<';

/** One line of the results table, as written to `results.json`. */
export interface BenchResult {
  /** What was measured, with its unit when it is not a plain ratio (`"… (ms)"`). */
  name: string;
  value: number;
  /** The goal as `"<comparison> <number>"` (`">= 0.95"`), or null for a figure shown without one. */
  goal: string | null;
  /** Whether the value meets the goal; null without a goal. */
  met: boolean | null;
}

const recorded: BenchResult[] = [];

const meets: Record<Comparison, (value: number, target: number) => boolean> = {
  '>=': (value, target) => value >= target,
  '>': (value, target) => value > target,
  '<=': (value, target) => value <= target,
  '<': (value, target) => value < target,
};

/**
 * Records one figure for the final table and `results.json`.
 *
 * @param goal - `[comparison, target]`, or null for a figure with no goal.
 * @example recordResult('Audit on vs off, throughput', 0.97, ['>=', 0.95]);
 */
export function recordResult(name: string, value: number, goal: readonly [Comparison, number] | null): BenchResult {
  const met = goal === null ? null : Number.isFinite(value) && meets[goal[0]](value, goal[1]);
  const result: BenchResult = { name, value: Number.isFinite(value) ? Number(value.toPrecision(4)) : value, goal: goal === null ? null : `${goal[0]} ${goal[1]}`, met };
  recorded.push(result);
  return result;
}

/** Every figure recorded so far, in order. */
export function recordedResults(): readonly BenchResult[] {
  return recorded;
}

/** The table printed at the end of the run: name, value, goal, met. */
export function formatResultsTable(results: readonly BenchResult[]): string {
  const nameWidth = Math.max(4, ...results.map((result) => result.name.length));
  const rows = results.map((result) => {
    const met = result.met === null ? '-' : result.met ? 'yes' : 'NO';
    return `${result.name.padEnd(nameWidth)}  ${String(result.value).padStart(9)}  ${(result.goal ?? '-').padEnd(8)}  ${met}`;
  });
  return [`${'name'.padEnd(nameWidth)}  ${'value'.padStart(9)}  ${'goal'.padEnd(8)}  met`, ...rows].join('\n');
}

/** Writes `results` to `path` as a JSON array, one result per line. */
export async function writeResults(path: string, results: readonly BenchResult[]): Promise<void> {
  const lines = results.map((result) => `  ${JSON.stringify(result)}`);
  await writeFile(path, `[\n${lines.join(',\n')}\n]\n`);
}
