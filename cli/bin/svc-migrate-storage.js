#!/usr/bin/env node
// `svc-migrate-storage`: copies a deployment from SQLite to PostgreSQL, offline. Runs the compiled ../dist/bin/svc-migrate-storage.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-migrate-storage', '../dist/bin/svc-migrate-storage.js');
