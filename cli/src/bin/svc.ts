#!/usr/bin/env node
/**
 * `svc`: the command-line client of the svc service. See `docs/cli.md`.
 */
import { expandShortApiKeyFlag, valueTakingFlags } from '../argv.js';
import { runMain } from '../main.js';
import { describeError } from '../svc/describe-error.js';
import { buildProgram } from '../svc/program.js';

const program = buildProgram();
await runMain('svc', () => program.parseAsync(expandShortApiKeyFlag(process.argv.slice(2), valueTakingFlags(program)), { from: 'user' }), describeError);
