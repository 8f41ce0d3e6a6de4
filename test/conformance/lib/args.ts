// Turning test-file arguments into what the Node driver's API takes.
//
// Test files are parsed with canonical EJSON, so every number is an Int32/Double/Long wrapper.
// Values that go to the server as document content (filters, documents, pipelines, commands,
// ...) keep their wrappers, so the server sees exactly the BSON types the test file wrote.
// Values the driver itself interprets as options (batchSize, limit, upsert, chunkSizeBytes,
// ...) become JavaScript numbers, which is what the driver's option validation expects.

import {
  ReadPreference,
  type ReadConcernLike,
  type ReadPreferenceMode,
  type WriteConcernSettings,
} from 'mongodb';
import { type Doc, isDocument, toJsNumber } from './bson-values.js';
import { TestFileError } from './match.js';

/** Argument names whose values are sent to the server as BSON content, unchanged. */
const CONTENT_KEYS = new Set([
  'filter',
  'document',
  'documents',
  'update',
  'replacement',
  'pipeline',
  'command',
  'keys',
  'let',
  'projection',
  'hint',
  'arrayFilters',
  'comment',
  'min',
  'max',
  'metadata',
  'failPoint',
  'validator',
  'index',
  'clusteredIndex',
  'timeseries',
  'changeStreamPreAndPostImages',
  'resumeAfter',
  'startAfter',
  'startAtOperationTime',
  'storageEngine',
  'indexOptionDefaults',
  'map',
  'reduce',
  'finalize',
  'scope',
  'out',
  'query',
  'encryptedFields',
]);

/**
 * Converts an arguments object: content-valued keys are kept as they are, everything else is
 * converted recursively (so the models inside `requests` / `models` get the same treatment).
 */
export function driverArgs(args: unknown): Doc {
  if (args === undefined) return {};
  if (!isDocument(args))
    throw new TestFileError(`arguments must be a document, got ${typeof args}`);
  const out: Doc = {};
  for (const [k, v] of Object.entries(args)) out[k] = CONTENT_KEYS.has(k) ? v : convertOption(v);
  return out;
}

function convertOption(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(convertOption);
  if (isDocument(v)) return driverArgs(v);
  return toJsNumber(v);
}

export function readConcernOf(v: unknown): ReadConcernLike | undefined {
  if (v === undefined) return undefined;
  if (!isDocument(v)) throw new TestFileError('readConcern must be a document');
  return { ...v } as ReadConcernLike;
}

export function writeConcernOf(v: unknown): WriteConcernSettings | undefined {
  if (v === undefined) return undefined;
  if (!isDocument(v)) throw new TestFileError('writeConcern must be a document');
  const wc: WriteConcernSettings = {};
  for (const [k, val] of Object.entries(v)) {
    const n = toJsNumber(val);
    if (k === 'w') wc.w = n as WriteConcernSettings['w'];
    else if (k === 'journal' || k === 'j') wc.journal = n as boolean;
    else if (k === 'wtimeoutMS' || k === 'wtimeout') wc.wtimeoutMS = n as number;
    else throw new TestFileError(`unknown writeConcern field ${k}`);
  }
  return wc;
}

export function readPreferenceOf(v: unknown): ReadPreference | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return new ReadPreference(v as ReadPreferenceMode);
  if (!isDocument(v) || typeof v.mode !== 'string')
    throw new TestFileError('readPreference must be a document with a mode');
  const options: { maxStalenessSeconds?: number; hedge?: Doc } = {};
  if (v.maxStalenessSeconds !== undefined)
    options.maxStalenessSeconds = toJsNumber(v.maxStalenessSeconds) as number;
  if (isDocument(v.hedge)) options.hedge = v.hedge;
  const tags = Array.isArray(v.tagSets) ? (v.tagSets as Record<string, string>[]) : undefined;
  return new ReadPreference(v.mode as ReadPreferenceMode, tags, options);
}

/** Replaces readConcern / writeConcern / readPreference argument values with driver objects. */
export function withCommonOptions(args: Doc): Doc {
  const out: Doc = { ...args };
  if ('readConcern' in out) out.readConcern = readConcernOf(out.readConcern);
  if ('writeConcern' in out) out.writeConcern = writeConcernOf(out.writeConcern);
  if ('readPreference' in out) out.readPreference = readPreferenceOf(out.readPreference);
  return out;
}
