#!/usr/bin/env node
// `svc`: the svc command-line client. Runs the compiled ../dist/bin/svc.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc', '../dist/bin/svc.js');
