/**
 * A first install that just works (issue 13): a fresh copy of the repository — its tracked files,
 * as `git clone` would write them — gets one `npm install`, and then every command the docs name
 * runs through `npx --no-install <command> --help`. Before the committed entry files in `bin/`,
 * npm linked nothing on the first install (the `dist/` targets did not exist yet), and `npx svc`
 * offered to download an unrelated registry package.
 *
 * Slow (it installs every workspace, compiles better-sqlite3 and builds), so it is one test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** How a command ended. */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` in `cwd` with the environment of a fresh shell (no variables of a parent npm run). */
function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_ENV' && name !== 'NODE_OPTIONS' && !name.startsWith('SVC_')));
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Copies the files git tracks (their working-tree content, with the mode git records) into `target`. */
async function copyTrackedFiles(target: string): Promise<number> {
  const listed = await run('git', ['ls-files', '--stage', '-z'], repositoryRoot);
  assert.equal(listed.code, 0, listed.stderr);
  let copied = 0;
  for (const entry of listed.stdout.split('\0').filter((line) => line !== '')) {
    const match = /^(\d{6}) [0-9a-f]+ \d+\t(.+)$/s.exec(entry);
    assert.ok(match, `unexpected git ls-files line: ${entry}`);
    const [, mode, path] = match as unknown as [string, string, string];
    const source = join(repositoryRoot, path);
    const destination = join(target, path);
    await mkdir(dirname(destination), { recursive: true });
    if (mode === '120000') await symlink(await readlink(source), destination);
    else if (mode === '160000') continue; // a submodule: a clone leaves it empty
    else {
      try {
        await copyFile(source, destination);
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') continue; // deleted in the working tree: not part of the next commit
        throw error;
      }
      await chmod(destination, mode === '100755' ? 0o755 : 0o644);
    }
    copied += 1;
  }
  return copied;
}

/** The commands the command-line reference lists in its table of commands (`| [`svc`](#svc) | …`). */
async function documentedCommands(): Promise<string[]> {
  const reference = await readFile(join(repositoryRoot, 'docs/cli.md'), 'utf8');
  return [...reference.matchAll(/^\| \[`([a-z-]+)`\]\(#[^)]*\) \| `@svc\/[a-z]+` \|/gm)].map((match) => match[1] as string);
}

/** Every command the workspaces' package.json files declare in `bin`. */
async function declaredCommands(): Promise<string[]> {
  const root = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  const names: string[] = [];
  for (const workspace of root.workspaces) {
    const manifest = JSON.parse(await readFile(join(repositoryRoot, workspace, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    names.push(...Object.keys(manifest.bin ?? {}));
  }
  return names;
}

describe('a first install', () => {
  let clone: string | undefined;
  afterAll(async () => {
    if (clone !== undefined) await rm(clone, { recursive: true, force: true });
  });

  it('one npm install in a fresh copy, then npx --no-install runs every documented command', { timeout: 45 * 60_000 }, async () => {
    const documented = await documentedCommands();
    assert.deepEqual([...documented].sort(), [...(await declaredCommands())].sort(), 'docs/cli.md lists exactly the commands the packages declare');
    assert.ok(documented.includes('svc') && documented.includes('svc-local'), `the commands found: ${documented.join(', ')}`);

    clone = await mkdtemp(join(tmpdir(), 'svc-first-install-'));
    assert.ok((await copyTrackedFiles(clone)) > 100);
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], clone);
    assert.equal(install.code, 0, `npm install failed:\n${install.stdout.slice(-4000)}\n${install.stderr.slice(-4000)}`);

    for (const command of documented) {
      const help = await run('npx', ['--no-install', command, '--help'], clone);
      assert.equal(help.code, 0, `npx --no-install ${command} --help exited ${help.code}:\n${help.stdout}\n${help.stderr}`);
      assert.match(help.stdout, new RegExp(`^Usage: ${command} \\[options\\]`), `${command}'s usage line`);
    }
  });
});
