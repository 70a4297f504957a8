#!/usr/bin/env node
// `svc-supervisor`: starts the svc REST API of a cluster's supervisor node. Runs the compiled ../dist/bin/svc-supervisor.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-supervisor', '../dist/bin/svc-supervisor.js');
