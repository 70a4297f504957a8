/**
 * The `svc` program itself, as a real process: its version, its top-level help (which shows the
 * global options), and names it refuses in words before anything is sent (the endpoint is a port
 * nobody listens on, so a request would end in exit 5 instead).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, it } from 'vitest';
import { runTool, tools } from '../testing/run-tool.js';

const svc = async (args: string[]) => runTool(tools.svc, args, { env: { SVC_HOME: '/nonexistent/svc-home', SVC_ENDPOINT: `http://127.0.0.1:${await closedPort()}` } });

describe('svc', () => {
  it('--version and -v print the version of @svc/cli', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await svc([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`);
    }
  });

  it('the top-level help shows the global options, -ak included, and every command group', async () => {
    const result = await svc(['--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: svc \[options\] \[command\]/);
    assert.match(result.stdout, /Global options \(before or after the command\):\n {2}-e, --endpoint <url>/);
    assert.match(result.stdout, /--api-key <key> +an API key; short form -ak/);
    assert.match(result.stdout, /--json +print JSON/);
    assert.match(result.stdout, /-v, --version/);
    for (const command of ['login', 'users', 'keys', 'launch', 'registrations', 'chat', 'audit', 'usage']) assert.match(result.stdout, new RegExp(`^ {2}${command} `, 'm'));
  });

  it('an unknown permission is answered in words, with the likely one and the known ones (exit 1, nothing sent)', async () => {
    const result = await svc(['users', 'create', 'bob', '--password', 'a long passphrase for bob', '--permissions', 'modles:list', '-ak', 'sk-svc-unused']);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      'svc: unknown permission "modles:list" (did you mean models:list?); known: models:list, models:read, models:write, models:register, keys:create, keys:manage, users:manage, cache:list, cache:delete, virtualenv:list, virtualenv:delete, logs:list, monitor:view, usage:read_all, admin\n',
    );
    const far = await svc(['users', 'update', 'bob', '--permissions', 'models:list,everything', '-ak', 'sk-svc-unused']);
    assert.equal(far.code, 1);
    assert.match(far.stderr, /^svc: unknown permission "everything"; known: models:list, /);
  });

  it('legacy permission names are accepted (the request is then sent: here, to nobody)', async () => {
    const result = await svc(['users', 'update', 'bob', '--permissions', 'models:start,models:list', '-ak', 'sk-svc-unused']);
    assert.equal(result.code, 5, result.stderr);
    assert.match(result.stderr, /ECONNREFUSED/);
  });
});

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
