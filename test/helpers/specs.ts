// Where MongoDB's driver specification test data lives. It is not part of this repository:
// SECANTUS_SPECS names the folder (holding unified/ and bson-corpus/); without it,
// ../shared/specs beside the checkout is used when present. Tests that need it skip with one visible line
// when it is absent, so a fresh clone's `npm test` passes on its own.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The spec data root, or undefined when this machine has none. */
export function specsRoot(): string | undefined {
  const given = process.env['SECANTUS_SPECS'];
  const root = given !== undefined && given !== '' ? given : join(REPO, '..', 'shared', 'specs');
  return existsSync(root) ? resolve(root) : undefined;
}

/** A folder inside the spec data (e.g. 'unified/crud'), or undefined when absent. */
export function specsDir(sub: string): string | undefined {
  const root = specsRoot();
  if (root === undefined) return undefined;
  const dir = join(root, sub);
  return existsSync(dir) ? dir : undefined;
}

/** The line a skipped test shows. */
export function specsMissing(sub: string): string {
  return `spec data ${sub} not found: set SECANTUS_SPECS or put the specs in ../shared/specs`;
}
