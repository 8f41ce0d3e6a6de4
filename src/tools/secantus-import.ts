#!/usr/bin/env node
// secantus-import: see src/tools/import.ts. Exit code 0 on success, 1 on failure (as mongoimport).

import { importMain } from './import-cli.js';

process.exitCode = await importMain(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
