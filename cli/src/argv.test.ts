import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { expandShortApiKeyFlag as expand, valueTakingFlags } from './argv.js';
import { buildProgram } from './svc/program.js';

const flags = valueTakingFlags(buildProgram());
const expandShortApiKeyFlag = (args: string[]) => expand(args, flags);

describe('expandShortApiKeyFlag', () => {
  it('rewrites -ak KEY and -ak=KEY to --api-key', () => {
    assert.deepEqual(expandShortApiKeyFlag(['whoami', '-ak', 'sk-x']), ['whoami', '--api-key', 'sk-x']);
    assert.deepEqual(expandShortApiKeyFlag(['whoami', '-ak=sk-x']), ['whoami', '--api-key=sk-x']);
  });

  it('leaves a value that happens to be -ak alone, and everything after --', () => {
    assert.deepEqual(expandShortApiKeyFlag(['login', '--password', '-ak']), ['login', '--password', '-ak']);
    assert.deepEqual(expandShortApiKeyFlag(['x', '--', '-ak']), ['x', '--', '-ak']);
  });

  it('knows every value-taking flag of the program, and no boolean one', () => {
    for (const flag of ['-e', '--endpoint', '--api-key', '--password', '--username', '--permissions', '--expires-at', '--owner']) assert.ok(flags.has(flag), flag);
    for (const flag of ['--json', '--enable', '--disable', '--must-change-password']) assert.ok(!flags.has(flag), flag);
  });

  it('leaves other arguments unchanged', () => {
    assert.deepEqual(expandShortApiKeyFlag(['users', 'list', '-e', 'http://h', '--json']), ['users', 'list', '-e', 'http://h', '--json']);
  });
});
