#!/usr/bin/env node
// The production build: `tsc -p tsconfig.build.json` into dist/ (the same tree as the sources:
// dist/processes/main.js, dist/workflows/…), plus the files the code reads beside itself at run time
// (dashboard assets, the common-password list). `npm run build` runs it; `npm start` runs it only when
// dist/ is missing or older than the sources (src/setup/start.cjs). Plain Node on purpose: it runs
// before anything is compiled. Like tsx before it, the build does not type-check (`--noCheck`: a third
// of the time); `npm test` and `npm run typecheck` do. Syntax errors stop it.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const dist = path.join(root, 'dist');
/** Written after each successful build; its mtime is the time the build started. */
const stamp = path.join(dist, '.build-stamp');
const lock = path.join(dist, '.build-lock');
/** What tsconfig.build.json compiles; their other files are copied as they are. */
const SOURCE_DIRS = ['src', 'workflows', 'activities', 'migrations', 'temporal', 'processes'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];
const COMPILED = /\.tsx?$/;
/** Sources that are not part of the build (this script and the other plain-Node set-up scripts). */
const NOT_COPIED = /\.(cjs|d\.ts)$/;
const LOCK_STALE_MS = 10 * 60_000;

/** Every file and folder under the source folders (a folder's mtime changes when a file is added, removed or renamed). */
function walk(dir, visit) {
  if (!fs.existsSync(dir)) return;
  visit(dir, true);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, visit);
    else visit(full, false);
  }
}

function newestSourceMs() {
  let newest = 0;
  const see = (file) => (newest = Math.max(newest, fs.statSync(file).mtimeMs));
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir), see);
  for (const file of CONFIG_FILES) see(path.join(root, file));
  return newest;
}

/** dist/ exists, has the entry point, and was built from sources no newer than itself. */
function isFresh() {
  if (!fs.existsSync(stamp) || !fs.existsSync(path.join(dist, 'processes', 'main.js'))) return false;
  return fs.statSync(stamp).mtimeMs >= newestSourceMs();
}

/** Non-TypeScript files of the source folders (assets read through __dirname), copied when changed. */
function copyAssets() {
  for (const dir of SOURCE_DIRS)
    walk(path.join(root, dir), (file, isDir) => {
      if (isDir || COMPILED.test(file) || NOT_COPIED.test(file)) return;
      const target = path.join(dist, path.relative(root, file));
      const source = fs.statSync(file);
      if (fs.existsSync(target) && fs.statSync(target).mtimeMs >= source.mtimeMs) return;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    });
}

/** Output whose source is gone (a removed module, migration or asset): it must not be loaded. */
function removeOrphans() {
  // An asset by its own name (dashboard.js is one), compiled output by its module's.
  const sourceOf = (relative) => {
    const base = relative.replace(/\.js\.map$|\.js$/, '');
    return base === relative ? [relative] : [relative, `${base}.ts`, `${base}.tsx`];
  };
  for (const dir of SOURCE_DIRS)
    walk(path.join(dist, dir), (file, isDir) => {
      if (isDir) return;
      const relative = path.relative(dist, file);
      if (!sourceOf(relative).some((source) => fs.existsSync(path.join(root, source)))) fs.rmSync(file);
    });
}

function compile(log) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    throw Object.assign(
      new Error(
        'TypeScript is not installed (a production install omits dev dependencies): run `npm run build` ' +
          'where it is and ship dist/ with the service',
      ),
      { code: 'NO_COMPILER' },
    );
  }
  log('compiling TypeScript into dist/ (tsc -p tsconfig.build.json)…');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--noCheck'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`tsc failed (exit code ${result.status ?? result.signal})`);
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** One build at a time (`npm start` and `npm test` may start together): the others wait for it. */
function withLock(fn) {
  fs.mkdirSync(dist, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (age > LOCK_STALE_MS) fs.rmSync(lock, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds dist/ unless it is up to date; true if it built. Throws if the build fails. */
function ensureBuilt(log = (message) => console.log(`[build] ${message}`), { force = false } = {}) {
  if (!force && isFresh()) return false;
  return withLock(() => {
    if (!force && isFresh()) return false; // built by whoever held the lock
    const started = new Date();
    // Without a stamp (a first build, one that failed or was cut short, a dist/ partly deleted) every
    // file is emitted again: tsc's incremental state would take outputs it wrote once as still there.
    if (!fs.existsSync(stamp) || !fs.existsSync(path.join(dist, 'processes', 'main.js')))
      fs.rmSync(path.join(dist, '.tsbuildinfo'), { force: true });
    fs.rmSync(stamp, { force: true });
    compile(log);
    copyAssets();
    removeOrphans();
    fs.writeFileSync(stamp, `${started.toISOString()}\n`);
    // Sources saved while tsc ran are newer than the stamp: the next start builds again.
    fs.utimesSync(stamp, started, started);
    log(`dist/ built in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);
    return true;
  });
}

module.exports = { ensureBuilt, isFresh, dist };

if (require.main === module) {
  try {
    ensureBuilt(undefined, { force: !process.argv.includes('--if-stale') });
  } catch (err) {
    console.error(`[build] ${err.message}`);
    process.exit(1);
  }
}
