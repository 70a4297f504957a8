/**
 * A fake OpenAI-compatible upstream in its own process (so it does not share the benchmark's event
 * loop with the load generator). Prints `upstream listening on <baseUrl>` and runs until killed.
 * Its first argument is the milliseconds every answer waits (a model's compute time; default 0).
 */
import { startFakeUpstream } from '@svc/server/testing';

const upstream = await startFakeUpstream({ record: false, delayMs: Number(process.argv[2] ?? 0) });
process.stdout.write(`upstream listening on ${upstream.baseUrl}\n`);
process.once('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
