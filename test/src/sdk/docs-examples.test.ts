/**
 * Every code example of docs/sdk.md is executed. The convention the guide follows:
 *
 * - A ```ts block is a standalone ES module, run as is with `node` (so it holds no TypeScript-only
 *   syntax) and type-checked as TypeScript against the SDK's declarations. It may import
 *   `@svc/sdk`, `@svc/sdk/mocks`, `msw`, `msw/node` and Node built-ins.
 * - The harness declares `baseUrl` (a real server started here), `apiKey` (a fresh key of its
 *   admin, one per block) and `adminPassword`. A block that mentions `SVC_ENDPOINT=` (the one about
 *   the environment) runs with `SVC_ENDPOINT` and `SVC_API_KEY` set to them; every other block runs
 *   without either, so there `new Client({ baseUrl })` has no API key.
 *   The literal `http://127.0.0.1:4010` (where `npm run mock` listens) is replaced by the URL of a
 *   Prism mock started here.
 * - A line with `console.log(…)` ending in `// text` expects `text` as the block's next line of
 *   output (a trailing ` (remark)` is allowed); a block prints nothing else.
 * - Every block runs: there is no opt-out (the `openai` example, once `no-run`, runs since the model routes exist).
 *   A block may also import `openai` (the real package, pinned in test/package.json).
 * - Every other block is ```sh.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import ts from 'typescript';
import { Client } from '@svc/sdk';
import { errorRegistry, operationSpecs } from '@svc/server';
import { adminCredentials, createKey, setupAdmin, startTestServer, type LoggedInUser, type TestServer } from '@svc/server/testing';
import { repoRoot, startPrism, type PrismMock } from '../support/prism.js';

interface CodeBlock {
  /** The fence's info string (`ts`, `ts no-run`, `sh`). */
  info: string;
  code: string;
  /** The line of docs/sdk.md where the code starts. */
  line: number;
}

const guidePath = join(repoRoot, 'docs/sdk.md');
const guide = readFileSync(guidePath, 'utf8');
const blocks = codeBlocks(guide);
const runnable = blocks.filter((block) => block.info === 'ts');
const PRISM_LITERAL = 'http://127.0.0.1:4010';
const BLOCK_DEADLINE_MS = 20_000;

function codeBlocks(markdown: string): CodeBlock[] {
  const found: CodeBlock[] = [];
  let open: { info: string; line: number; body: string[] } | null = null;
  markdown.split('\n').forEach((text, index) => {
    if (open === null) {
      const fence = /^```(.*)$/.exec(text);
      if (fence !== null) open = { info: (fence[1] ?? '').trim(), line: index + 2, body: [] };
    } else if (text.trimEnd() === '```') {
      found.push({ info: open.info, code: open.body.join('\n'), line: open.line });
      open = null;
    } else {
      open.body.push(text);
    }
  });
  assert.equal(open, null, 'docs/sdk.md has an unclosed code fence');
  return found;
}

/** The output a block announces with `console.log(…); // text` comments, in order. */
function expectedOutput(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => line.includes('console.log('))
    .map((line) => {
      const comment = /\/\/ (.+)$/.exec(line);
      assert.ok(comment !== null, `a console.log without its expected output: ${line.trim()}`);
      return (comment[1] as string).trim();
    });
}

function run(file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd, env, timeout: BLOCK_DEADLINE_MS }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('docs/sdk.md', () => {
  it('marks no block no-run (the openai example runs too); every other block is ts or sh', () => {
    const noRun = blocks.filter((block) => block.info.includes('no-run'));
    assert.equal(noRun.length, 0, `no-run blocks at lines ${noRun.map((block) => block.line).join(', ')}`);
    assert.ok(runnable.some((block) => block.code.includes("from 'openai'")), 'the openai example is run');
    const others = blocks.filter((block) => block.info !== 'ts');
    assert.deepEqual(
      others.filter((block) => block.info !== 'sh').map((block) => `${block.line}: ${block.info || '(no language)'}`),
      [],
      'a block in another language would not be run',
    );
    assert.ok(runnable.length >= 10, `only ${runnable.length} runnable blocks`);
  });

  it('lists every method of every resource, and every route the SDK calls, in the resources table', () => {
    const client = new Client({ baseUrl: 'http://unused.test' });
    const resources = {
      health: client.health,
      setup: client.setup,
      auth: client.auth,
      users: client.users,
      keys: client.keys,
      models: client.models,
      modelRegistrations: client.modelRegistrations,
      inference: client.inference,
      cache: client.cache,
      virtualenvs: client.virtualenvs,
      cluster: client.cluster,
      monitoring: client.monitoring,
    };
    for (const [name, resource] of Object.entries(resources)) {
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(resource)).filter((method) => method !== 'constructor');
      assert.ok(methods.length > 0, name);
      for (const method of methods) assert.ok(guide.includes(`| \`client.${name}.${method}(`), `client.${name}.${method} is missing`);
    }
    for (const method of ['login', 'logout']) assert.ok(guide.includes(`| \`client.${method}(`), `client.${method} is missing`);
    for (const operation of operationSpecs.filter((spec) => spec.operationId !== 'loginLegacy')) {
      assert.ok(guide.includes(`\`${operation.method} ${operation.path}\` |`), `${operation.method} ${operation.path} is missing`);
    }
  });

  it('names every error code of the server', () => {
    for (const code of Object.keys(errorRegistry)) assert.ok(guide.includes(`\`${code}\``), `${code} is missing`);
  });

  describe('its ts examples', () => {
    let directory: string;
    let server: TestServer;
    let admin: LoggedInUser;
    let prism: PrismMock | undefined;

    beforeAll(async () => {
      // Inside test/ (the folder is ignored by git): `@svc/sdk` (the built package, as users install
      // it) and `msw` resolve from the workspace's node_modules.
      directory = await mkdtemp(join(repoRoot, 'test/.docs-examples-'));
      server = await startTestServer();
      admin = await setupAdmin(server);
      if (runnable.some((block) => block.code.includes(PRISM_LITERAL))) prism = await startPrism();
    });

    afterAll(async () => {
      await prism?.stop();
      await server?.close();
      if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    });

    it('type-check against the SDK declarations', async () => {
      const declarations = join(directory, 'harness.d.ts');
      await writeFile(declarations, 'declare const baseUrl: string;\ndeclare const apiKey: string;\ndeclare const adminPassword: string;\n');
      const files = [declarations];
      for (const block of runnable) {
        const file = join(directory, `check-${block.line}.mts`);
        await writeFile(file, block.code);
        files.push(file);
      }
      const program = ts.createProgram(files, {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts'],
        types: ['node'],
        skipLibCheck: true,
        noEmit: true,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        const blockLine = Number(/check-(\d+)\.mts$/.exec(diagnostic.file.fileName)?.[1] ?? Number.NaN);
        return `docs/sdk.md:${blockLine + line}: ${text}`;
      });
      assert.deepEqual(problems, []);
    });

    for (const block of runnable) {
      it(`run: docs/sdk.md:${block.line}`, async () => {
        const key = await createKey(server, admin.accessToken, { name: `docs/sdk.md:${block.line}` });
        const values = { baseUrl: server.baseUrl, apiKey: key.key, adminPassword: adminCredentials.password };
        // One line of declarations, so the block's line N is line N + 1 of the file.
        const prelude = `const baseUrl = ${JSON.stringify(values.baseUrl)}, apiKey = ${JSON.stringify(values.apiKey)}, adminPassword = ${JSON.stringify(values.adminPassword)};`;
        const code = prism === undefined ? block.code : block.code.replaceAll(PRISM_LITERAL, prism.baseUrl);
        const cwd = join(directory, `run-${block.line}`);
        await mkdir(cwd);
        const file = join(cwd, 'example.mjs');
        await writeFile(file, `${prelude}\n${code}\n`);
        const { SVC_ENDPOINT: _endpoint, SVC_API_KEY: _key, ...inherited } = process.env;
        const env = block.code.includes('SVC_ENDPOINT=') ? { ...inherited, SVC_ENDPOINT: values.baseUrl, SVC_API_KEY: values.apiKey } : inherited;
        const result = await run(file, cwd, env);
        const where = `docs/sdk.md:${block.line} (line N of example.mjs is line N + ${block.line - 2} of the guide)`;
        assert.equal(result.code, 0, `${where} failed:\n${result.stderr}\n${result.stdout}`);
        const printed = result.stdout.split('\n').filter((line) => line !== '');
        const expected = expectedOutput(block.code);
        assert.equal(printed.length, expected.length, `${where} printed:\n${result.stdout}\nexpected:\n${expected.join('\n')}`);
        printed.forEach((line, index) => {
          const comment = expected[index] as string;
          assert.ok(comment === line || comment.startsWith(`${line} (`), `${where}: printed "${line}", the guide says "${comment}"`);
        });
      });
    }
  });
});
