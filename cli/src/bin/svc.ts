#!/usr/bin/env node
/**
 * `svc`: the command-line client of the svc service. See `docs/cli.md`.
 */
import { expandShortApiKeyFlag } from '../argv.js';
import { runMain } from '../main.js';
import { describeError } from '../svc/describe-error.js';
import { buildProgram } from '../svc/program.js';

await runMain('svc', () => buildProgram().parseAsync(expandShortApiKeyFlag(process.argv.slice(2)), { from: 'user' }), describeError);
