#!/usr/bin/env node
// `svc-unban`: lists and lifts bans and lockouts on the database, offline. Runs the compiled ../dist/bin/svc-unban.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-unban', '../dist/bin/svc-unban.js');
