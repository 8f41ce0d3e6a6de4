#!/usr/bin/env node
// secantus-export: see src/tools/export.ts. Exit code 0 on success, 1 on failure (as mongoexport).

import { exportMain } from './export-cli.js';

process.exitCode = await exportMain(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
