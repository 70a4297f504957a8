/**
 * `svc keys …` by name as well as by id, and a key's model restrictions (`--models`) and narrowed
 * permissions set from the command line and shown by `svc keys list`: the real binary against a real
 * server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createKey, createUser, useServerWithAdmin } from '@svc/server/testing';
import { jsonOf, runTool, tools } from '../testing/run-tool.js';

interface KeyJson {
  id: string;
  name: string;
  enabled: boolean;
  permissions: string[] | null;
  model_permissions: { permission_type: string; permission_value: string | null }[];
}

describe('svc keys', () => {
  const handle = useServerWithAdmin();
  let home: string;
  let adminKey: string;
  const svc = (args: string[], extra: Record<string, string> = {}) =>
    runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl, SVC_API_KEY: adminKey, ...extra } });
  const ok = async (args: string[], extra: Record<string, string> = {}) => {
    const result = await svc(args, extra);
    assert.equal(result.code, 0, `svc ${args.join(' ')}: ${result.stderr}`);
    return result;
  };
  const listed = async (name: string) => jsonOf<KeyJson[]>(await ok(['keys', 'list', '--json'])).find((key) => key.name === name);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-keys-'));
    adminKey = (await createKey(handle.server, handle.admin.accessToken, { name: 'admin cli' })).key;
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('create --models and --permissions; keys list shows both', async () => {
    const created = jsonOf<KeyJson>(await ok(['keys', 'create', '--name', 'ci', '--models', 'echo,type:embedding', '--permissions', 'models:list,models:read', '--json']));
    assert.deepEqual(created.model_permissions, [
      { permission_type: 'model_id', permission_value: 'echo' },
      { permission_type: 'model_type', permission_value: 'embedding' },
    ]);
    assert.deepEqual(created.permissions, ['models:list', 'models:read']);
    const table = await ok(['keys', 'list'], { COLUMNS: '250' });
    assert.match(table.stdout, /^ID +NAME +OWNER +PREFIX +ENABLED +EXPIRES +LAST USED +PERMISSIONS +MODELS$/m);
    assert.match(table.stdout, /\bci +admin +sk-svc-\S+… +yes +never +- +models:list, models:read +echo, type:embedding$/m);
    assert.match(table.stdout, /admin cli .*\(owner's\) +all$/m);
  });

  it('update by name: models all, then none, narrowed permissions, disable; reveal and delete by name', async () => {
    const id = (await listed('ci'))?.id;
    assert.ok(id);
    const everyModel = jsonOf<KeyJson>(await ok(['keys', 'update', 'ci', '--models', 'all', '--json']));
    assert.equal(everyModel.id, id);
    assert.deepEqual(everyModel.model_permissions, [{ permission_type: 'all', permission_value: null }]);
    const updated = await ok(['keys', 'update', 'ci', '--models', 'none', '--permissions', 'models:list', '--disable']);
    assert.equal(updated.stdout, `Updated API key ci (${id}): disabled, permissions: models:list, models: (none).\n`);
    const stored = await listed('ci');
    assert.deepEqual([stored?.enabled, stored?.permissions, stored?.model_permissions], [false, ['models:list'], []]);
    const inherited = jsonOf<KeyJson>(await ok(['keys', 'update', 'ci', '--inherit-permissions', '--json']));
    assert.equal(inherited.permissions, null);
    const revealed = await ok(['keys', 'reveal', 'ci']);
    assert.match(revealed.stdout, /^sk-svc-\S+\n$/);
    const deleted = await ok(['keys', 'delete', 'ci']);
    assert.equal(deleted.stdout, `Deleted API key ci (${id}).\n`);
    assert.equal(await listed('ci'), undefined);
  });

  it('an unknown name exits 4; a name two keys share exits 1 and lists their ids; an id still works', async () => {
    const missing = await svc(['keys', 'delete', 'no such key']);
    assert.equal(missing.code, 4);
    assert.equal(missing.stderr, 'svc: no API key named "no such key" (see svc keys list)\n');
    const first = jsonOf<KeyJson>(await ok(['keys', 'create', '--name', 'twin', '--json']));
    const second = jsonOf<KeyJson>(await ok(['keys', 'create', '--name', 'twin', '--json']));
    const ambiguous = await svc(['keys', 'update', 'twin', '--disable']);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /^svc: 2 API keys are named "twin": .+; give the id\n$/);
    assert.ok(ambiguous.stderr.includes(first.id) && ambiguous.stderr.includes(second.id));
    assert.equal((await listed('twin'))?.enabled, true, 'nothing changed');
    const byId = jsonOf<KeyJson>(await ok(['keys', 'update', second.id, '--name', 'twin 2', '--json']));
    assert.equal(byId.name, 'twin 2');
  });

  it('refuses --models none on a new key, an unknown model type, and an unknown permission, before sending anything', async () => {
    const none = await svc(['keys', 'create', '--name', 'nothing', '--models', 'none']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^svc: --models none: a new key starts with at least one model/);
    const type = await svc(['keys', 'create', '--name', 'typo', '--models', 'type:embeding']);
    assert.equal(type.code, 1);
    assert.equal(type.stderr, 'svc: unknown model type "embeding" (did you mean embedding?); known: LLM, embedding, rerank, image, video, audio\n');
    const permission = await svc(['keys', 'create', '--name', 'typo', '--permissions', 'models:lsit']);
    assert.equal(permission.code, 1);
    assert.match(permission.stderr, /^svc: unknown permission "models:lsit" \(did you mean models:list\?\); known: models:list, /);
    assert.equal(await listed('nothing'), undefined);
    assert.equal(await listed('typo'), undefined);
  });

  it("only keys:manage may change a key's model restrictions (exit 3, the server's words)", async () => {
    const user = await createUser(handle.server, handle.admin.accessToken, ['models:list', 'keys:create']);
    const own = (await createKey(handle.server, user.accessToken, { name: 'mine', model_permissions: [{ permission_type: 'model_id', permission_value: 'echo' }] })).key;
    const refused = await runTool(tools.svc, ['keys', 'update', 'mine', '--models', 'all'], { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl, SVC_API_KEY: own } });
    assert.equal(refused.code, 3);
    assert.equal(refused.stderr, "svc: forbidden: Changing a key's model restrictions needs keys:manage\n");
  });

  it('the global options work before the command too', async () => {
    const keys = jsonOf<KeyJson[]>(await ok(['--json', '-e', handle.server.baseUrl, 'keys', 'list'], { SVC_ENDPOINT: 'http://127.0.0.1:9' }));
    assert.ok(keys.some((key) => key.name === 'admin cli'));
    const me = jsonOf<{ auth_type: string }>(await ok(['-ak', adminKey, '--json', 'whoami'], { SVC_API_KEY: '' }));
    assert.equal(me.auth_type, 'api_key');
  });
});
