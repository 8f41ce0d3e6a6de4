#!/usr/bin/env node
// secantus-restore: see src/tools/restore.ts. Exit code 0 on success, 1 on failure (as mongorestore).

import { restoreMain } from './restore-cli.js';

process.exitCode = await restoreMain(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
