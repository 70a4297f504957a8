#!/usr/bin/env node
// `svc-local`: starts the svc REST API and web UI on one machine. Runs the compiled ../dist/bin/svc-local.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-local', '../dist/bin/svc-local.js');
