#!/usr/bin/env node
/**
 * A benchmark-only server entry: `svc-local` without its options, built with or without the audit
 * trail (`--without-audit`). Not shipped as a command: the audit trail cannot be switched off in
 * `svc-local`; only the benchmark measures what it costs. Prints the same start-up line as svc-local.
 */
import { buildApp, loadConfig } from '@svc/server';

const withoutAudit = process.argv.includes('--without-audit');
const config = loadConfig(process.env);
const app = await buildApp(config, { withoutAuditForBenchmark: withoutAudit });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`svc listening on ${address} (audit ${withoutAudit ? 'off' : 'on'})\n`);
