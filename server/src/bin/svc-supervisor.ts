#!/usr/bin/env node
/**
 * `svc-supervisor`: starts the REST API of a cluster's supervisor node. It takes the same options as
 * `svc-local` and serves the same API; every process serving one deployment must share `SVC_HOME`
 * (or the same `SVC_AUTH_*` variables).
 */
import { runServerCommand } from './server-command.js';

await runServerCommand({
  name: 'svc-supervisor',
  description: "Start the REST API of a cluster's supervisor node (same options as svc-local); share SVC_HOME with every other API process",
});
