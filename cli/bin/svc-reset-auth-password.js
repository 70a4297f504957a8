#!/usr/bin/env node
// `svc-reset-auth-password`: offline: sets a new password for an administrator. Runs the compiled ../dist/bin/svc-reset-auth-password.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-reset-auth-password', '../dist/bin/svc-reset-auth-password.js');
