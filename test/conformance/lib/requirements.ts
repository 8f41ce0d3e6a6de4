// runOnRequirements: which tests the connected server can run.

import { type Doc, isDocument, numericEqual, isNumeric, show } from './bson-values.js';
import { TestFileError } from './match.js';

export type Topology = 'single' | 'replicaset' | 'sharded' | 'load-balanced';

export interface ServerFacts {
  /** buildInfo.versionArray, first three components. */
  version: readonly [number, number, number];
  topology: Topology;
  auth: boolean;
  /** getParameter: '*' reply, or undefined when the server does not answer it. */
  parameters(): Promise<Doc | undefined>;
}

/** "4.0.10" → [4, 0, 10]; missing components are zero; anything after major.minor.patch is ignored. */
export function parseVersion(v: unknown): [number, number, number] {
  if (typeof v !== 'string' || !/^\d+(\.\d+){0,2}/.test(v))
    throw new TestFileError(`malformed version string ${show(v)}`);
  const parts = v
    .split(/[^\d]/)
    .slice(0, 3)
    .map((x) => Number(x === '' ? 0 : x));
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

const KNOWN = new Set([
  'minServerVersion',
  'maxServerVersion',
  'topologies',
  'serverless',
  'serverParameters',
  'auth',
  'authMechanism',
  'csfle',
]);

/** Why one runOnRequirement is not met, or undefined when it is. */
async function unmetReason(req: unknown, facts: ServerFacts): Promise<string | undefined> {
  if (!isDocument(req)) throw new TestFileError('runOnRequirement must be a document');
  for (const k of Object.keys(req))
    if (!KNOWN.has(k)) throw new TestFileError(`unknown runOnRequirement field ${k}`);
  const v = facts.version.join('.');
  if (
    req.minServerVersion !== undefined &&
    compareVersions(facts.version, parseVersion(req.minServerVersion)) < 0
  ) {
    return `server ${v} < minServerVersion ${String(req.minServerVersion)}`;
  }
  if (
    req.maxServerVersion !== undefined &&
    compareVersions(facts.version, parseVersion(req.maxServerVersion)) > 0
  ) {
    return `server ${v} > maxServerVersion ${String(req.maxServerVersion)}`;
  }
  if (req.topologies !== undefined) {
    if (!Array.isArray(req.topologies)) throw new TestFileError('topologies must be an array');
    const ok = req.topologies.some(
      (t) => t === facts.topology || (t === 'sharded-replicaset' && facts.topology === 'sharded'),
    );
    if (!ok) return `topology ${facts.topology} not in [${req.topologies.join(', ')}]`;
  }
  if (req.serverless === 'require') return 'requires Atlas Serverless';
  if (req.auth === true && !facts.auth) return 'requires authentication';
  if (req.auth === false && facts.auth) return 'requires no authentication';
  if (req.authMechanism !== undefined)
    return `requires auth mechanism ${String(req.authMechanism)}`;
  if (req.csfle === true)
    return 'requires client-side field level encryption (not available to this runner)';
  if (req.serverParameters !== undefined) {
    if (!isDocument(req.serverParameters))
      throw new TestFileError('serverParameters must be a document');
    const params = await facts.parameters();
    if (params === undefined) return 'getParameter failed';
    for (const [name, want] of Object.entries(req.serverParameters)) {
      const got = params[name];
      const equal =
        isNumeric(want) || isNumeric(got)
          ? isNumeric(want) && isNumeric(got) && numericEqual(want, got)
          : got === want;
      if (!equal) return `server parameter ${name} is ${show(got)}, needs ${show(want)}`;
    }
  }
  return undefined;
}

/** Undefined if any requirement is met (or there are none), else why none is. */
export async function requirementsUnmet(
  reqs: unknown,
  facts: ServerFacts,
): Promise<string | undefined> {
  if (reqs === undefined) return undefined;
  if (!Array.isArray(reqs)) throw new TestFileError('runOnRequirements must be an array');
  const reasons: string[] = [];
  for (const r of reqs) {
    const why = await unmetReason(r, facts);
    if (why === undefined) return undefined;
    reasons.push(why);
  }
  return reasons.join('; ');
}
