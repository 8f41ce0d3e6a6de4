#!/usr/bin/env node
// secantus-dump: see src/tools/dump.ts. Exit code 0 on success, 1 on failure (as mongodump).

import { dumpMain } from './dump-cli.js';

process.exitCode = await dumpMain(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
