#!/usr/bin/env node
// `svc-migrate-auth`: offline: moves a legacy JSON auth configuration into the database. Runs the compiled ../dist/bin/svc-migrate-auth.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-migrate-auth', '../dist/bin/svc-migrate-auth.js');
