#!/usr/bin/env node
/**
 * `svc-local`: starts the svc REST API (and, later, its web UI) on one machine.
 */
import { runServerCommand } from './server-command.js';

await runServerCommand({
  name: 'svc-local',
  description: 'Start the svc service (REST API on one machine) with its embedded SQLite database under SVC_HOME',
});
