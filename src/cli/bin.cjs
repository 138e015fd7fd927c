#!/usr/bin/env node
// The customer CLI's executable (package.json "bin" domain-audit, `npm run cli`; README "Use it from
// CI"). Plain Node so that it runs anywhere the package is: the TypeScript sources are loaded through
// tsx's require hook, as `npm run admin` loads its own.
'use strict';
require('tsx/cjs/api').register();
require('./main.ts').run();
