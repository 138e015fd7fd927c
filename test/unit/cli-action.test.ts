import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const ROOT = path.join(__dirname, '..', '..');
const action = fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

/** Packages the CLI loads at run time: bare imports of bin.cjs and of every module it reaches (type-only ones left out). */
function runtimePackages(): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!),
      ...[...text.matchAll(/\brequire\('([^']+)'\)/g)].map((m) => m[1]!),
    ];
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        const base = path.resolve(path.dirname(file), specifier);
        const target = [base, `${base}.ts`, path.join(base, 'index.ts')].find(
          (f) => fs.existsSync(f) && fs.statSync(f).isFile(),
        );
        assert.ok(target, `${file} imports ${specifier}`);
        visit(target);
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const parts = specifier.split('/');
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  };
  visit(path.join(ROOT, 'src', 'cli', 'bin.cjs'));
  return packages;
}

describe('the CLI as a package bin and as a GitHub Action (action.yml)', () => {
  it('is the package bin and `npm run cli`', () => {
    assert.equal(pkg.bin['domain-audit'], 'src/cli/bin.cjs');
    assert.equal(pkg.scripts.cli, 'node src/cli/bin.cjs');
    assert.ok(fs.readFileSync(path.join(ROOT, pkg.bin['domain-audit']!), 'utf8').startsWith('#!/usr/bin/env node\n'));
    assert.ok(fs.statSync(path.join(ROOT, pkg.bin['domain-audit']!)).mode & 0o100, 'executable');
  });

  it('installs every package the CLI loads, each a pinned production dependency', () => {
    const listed = /\[('[^\]]+')\]\.map\(\(n\) => n \+ '@' \+ p\.dependencies\[n\]\)/.exec(action);
    assert.ok(listed, 'the install step names its packages');
    const installed = listed[1]!.split(',').map((s) => s.trim().replace(/'/g, ''));
    assert.deepEqual(installed.sort(), [...runtimePackages()].sort());
    for (const name of installed) assert.match(pkg.dependencies[name] ?? '', /^\d+\.\d+\.\d+$/, name);
  });

  it('takes the CLI options as inputs and hands them over through the environment only', () => {
    const inputs = [...action.matchAll(/^ {2}([a-z-]+):\n {4}description:/gm)].map((m) => m[1]);
    for (const name of [
      'domain',
      'api-url',
      'api-key',
      'tier',
      'render',
      'wait',
      'fail-under',
      'fail-on-new',
      'format',
      'output',
      'timeout',
    ])
      assert.ok(inputs.includes(name), `input ${name}`);
    for (const option of [
      '--tier',
      '--render',
      '--wait',
      '--fail-under',
      '--fail-on-new',
      '--format',
      '--output',
      '--timeout',
    ])
      assert.ok(action.includes(`args+=(${option}`) || action.includes(`${option} "$INPUT_`), option);
    const runScripts = [...action.matchAll(/run: \|\n((?: {8}.*\n)+)/g)].map((m) => m[1]!);
    assert.equal(runScripts.length, 2);
    for (const script of runScripts) assert.doesNotMatch(script, /\$\{\{/, 'no expression spliced into a script');
    assert.match(action, /AUDIT_API_URL: \$\{\{ inputs\.api-url \}\}/);
    assert.match(action, /AUDIT_API_KEY: \$\{\{ inputs\.api-key \}\}/);
  });
});
