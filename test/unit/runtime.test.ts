import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('runtime', () => {
  it('runs on the Node.js of the lockfile (the `node` package), an LTS release at or above the engines floor', () => {
    const locked = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'node', 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies.node, locked.version);
    assert.equal(process.version, `v${locked.version}`, 'npm scripts put node_modules/.bin first on the PATH');
    assert.ok(process.release.lts, `${process.version} is an LTS release`);
    const floor = /^>=(\d+)\.(\d+)$/.exec(manifest.engines.node)!;
    const [major, minor] = process.versions.node.split('.').map(Number);
    assert.ok(major! > Number(floor[1]) || (major === Number(floor[1]) && minor! >= Number(floor[2])));
  });
});
