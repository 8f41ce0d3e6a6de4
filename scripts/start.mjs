#!/usr/bin/env node
// npm start: build if the sources changed (scripts/build.mjs: milliseconds when dist/ is
// current), then run the daemon in this same process — one Node start instead of two.
//
//   npm start -- --port 27017 --dbpath ./data

import { ensureBuilt } from './build.mjs';

ensureBuilt();
await import('../dist/src/cli/secantusd.js');
