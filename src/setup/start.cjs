#!/usr/bin/env node
// `npm start`: the service as compiled JavaScript. Builds dist/ first when it is missing or older than
// the sources (src/setup/build.cjs), then runs dist/processes/main.js in this process: no TypeScript is
// transpiled at load, here or in the worker processes it forks. A production install without
// TypeScript runs the dist/ it was shipped with.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ensureBuilt, dist } = require('./build.cjs');

const entry = path.join(dist, 'processes', 'main.js');
try {
  ensureBuilt();
} catch (err) {
  if (err.code !== 'NO_COMPILER' || !fs.existsSync(entry)) {
    console.error(`[build] ${err.message}`);
    process.exit(1);
  }
  console.error(`[build] dist/ may be older than the sources and cannot be rebuilt (${err.message}); running it`);
}
require(entry);
