#!/usr/bin/env node
// `svc-audit-verify`: checks the audit trail's hash chain offline. Runs the compiled ../dist/bin/svc-audit-verify.js (see run-built.js).
import { runBuilt } from './run-built.js';

await runBuilt('svc-audit-verify', '../dist/bin/svc-audit-verify.js');
