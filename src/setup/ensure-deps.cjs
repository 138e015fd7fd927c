#!/usr/bin/env node
// Runs before `npm start` and `npm test` (npm's pre-scripts): installs the locked dependencies
// when node_modules is missing or was installed from another package-lock.json, so a fresh
// clone needs no separate install step. Plain Node on purpose: nothing is installed yet.
// `npm ci`: exactly the committed lockfile, failing if package.json and the lockfile disagree.
'use strict';
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const lockFile = path.join(root, 'package-lock.json');
const stamp = path.join(root, 'node_modules', '.installed-lock-sha256');
const wanted = createHash('sha256').update(fs.readFileSync(lockFile)).digest('hex');
const installed = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';

if (installed !== wanted) {
  console.log('[setup] installing dependencies from package-lock.json (npm ci)…');
  const npm = process.env.npm_execpath
    ? [process.execPath, [process.env.npm_execpath]]
    : ['npm', []];
  const result = spawnSync(npm[0], [...npm[1], 'ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('[setup] npm ci failed');
    process.exit(result.status || 1);
  }
  fs.writeFileSync(stamp, `${wanted}\n`);
}
