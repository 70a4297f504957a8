/**
 * The SDK package is publishable as it stands (issue 13): what `npm pack` puts in the tarball has
 * a LICENSE, a README whose links work outside this repository, and the fields a registry page
 * shows (`repository`, `homepage`, `bugs`), and `sideEffects: false` for bundlers. (`npm run
 * check:package` runs attw on the same tarball.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';

const sdkDirectory = fileURLToPath(new URL('../../../sdk/', import.meta.url));

interface PackedFile {
  path: string;
}

describe('the @svc/sdk package', () => {
  let packed: Set<string>;
  let manifest: Record<string, unknown>;

  beforeAll(async () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: sdkDirectory, encoding: 'utf8' });
    assert.equal(pack.status, 0, pack.stderr);
    const [result] = JSON.parse(pack.stdout) as [{ files: PackedFile[] }];
    packed = new Set(result.files.map((file) => file.path));
    manifest = JSON.parse(await readFile(`${sdkDirectory}package.json`, 'utf8')) as Record<string, unknown>;
  });

  it('ships a LICENSE matching its license field, a README and the built code, and no tests', () => {
    assert.ok(packed.has('LICENSE'));
    assert.ok(packed.has('README.md'));
    assert.ok(packed.has('dist/index.js') && packed.has('dist/index.d.ts'));
    assert.deepEqual([...packed].filter((path) => /\.test\.|\/testing\/|^src\//.test(path)), []);
    assert.equal(manifest['license'], 'Apache-2.0');
  });

  it('has the LICENSE text of its license', async () => {
    const license = await readFile(`${sdkDirectory}LICENSE`, 'utf8');
    assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  });

  it('names its repository, homepage and issue tracker, and declares no side effects', () => {
    const repository = manifest['repository'] as { type?: string; url?: string; directory?: string };
    assert.equal(repository.type, 'git');
    assert.match(repository.url ?? '', /^git\+https:\/\/.+\.git$/);
    assert.equal(repository.directory, 'sdk');
    assert.match(String(manifest['homepage']), /^https:\/\//);
    assert.match((manifest['bugs'] as { url?: string }).url ?? '', /^https:\/\//);
    assert.equal(manifest['sideEffects'], false);
  });

  it("every link of its README works outside the monorepo: an absolute URL or a file in the package", async () => {
    const readme = await readFile(`${sdkDirectory}README.md`, 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    assert.ok(targets.length > 0);
    for (const target of targets) {
      if (/^https:\/\//.test(target)) continue;
      const path = target.replace(/^\.\//, '').replace(/#.*$/, '');
      assert.ok(packed.has(path), `README link ${target} points outside the package`);
    }
  });
});
