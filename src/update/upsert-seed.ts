// The document an upsert starts from (mongod's UpdateDriver::populateDocumentWithQueryFields):
// the equality predicates of the query, set at their paths.
//
// Equalities are {a: v} (not a regex), {a: {$eq: v}}, {a: {$in: [v]}} with a single distinct
// non-regex value, every non-regex value of {a: {$all: [...]}}, and those inside $and and a
// single-clause $or (mongod's canonical form flattens both). Other operators, $nor and
// multi-clause $or contribute nothing. Two equalities on the same path, or on a path and
// one of its prefixes, make the seed ambiguous: NotSingleValueField.
//
// A replacement upsert takes only `_id` from the query (a dotted `_id.x` equality cannot
// give a whole `_id`: NotExactValueField).
//
// Field order: mongod keeps the equalities in a map keyed by path; we set them in path
// order (byte order), which is what std::map gave; `_id` is moved first afterwards.

import { BSONRegExp } from 'bson';
import { compareBson, compareStrings } from '../bson/compare.js';
import { hasOwn, setOwn, setValueAt } from '../bson/document.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';

export interface UpsertSeedOptions {
  /** A replacement-style update: only `_id` is taken from the query. */
  readonly replacement?: boolean;
}

interface Equality {
  readonly path: string;
  readonly value: BsonValue;
}

function isRegex(v: BsonValue): boolean {
  return v instanceof BSONRegExp;
}

function isElemMatch(v: BsonValue): boolean {
  return isPlainDocument(v) && Object.keys(v)[0] === '$elemMatch';
}

function extractField(path: string, value: BsonValue, out: Equality[]): void {
  if (isPlainDocument(value)) {
    const keys = Object.keys(value);
    if (keys.length > 0 && (keys[0] as string).startsWith('$')) {
      for (const op of keys) {
        const arg = value[op] as BsonValue;
        if (op === '$eq') {
          out.push({ path, value: arg });
        } else if (op === '$in' && isArray(arg)) {
          // mongod keeps $in's values as a set; one distinct non-regex value is an equality.
          const distinct: BsonValue[] = [];
          for (const v of arg) if (!distinct.some((d) => compareBson(d, v) === 0)) distinct.push(v);
          if (distinct.length === 1 && !isRegex(distinct[0] as BsonValue))
            out.push({ path, value: distinct[0] as BsonValue });
        } else if (op === '$all' && isArray(arg)) {
          for (const v of arg) if (!isRegex(v) && !isElemMatch(v)) out.push({ path, value: v });
        }
      }
      return;
    }
  }
  if (isRegex(value)) return;
  out.push({ path, value });
}

function extract(filter: BsonDocument, out: Equality[]): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key] as BsonValue;
    if (key === '$and') {
      if (isArray(value))
        for (const clause of value) if (isPlainDocument(clause)) extract(clause, out);
    } else if (key === '$or') {
      if (isArray(value) && value.length === 1 && isPlainDocument(value[0])) extract(value[0], out);
    } else if (!key.startsWith('$')) {
      extractField(key, value, out);
    }
  }
}

function parts(path: string): string[] {
  return path.split('.');
}

function isPrefixOf(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => p === path[i]);
}

/** Refuse two equalities at one path, or at a path and its prefix. */
function checkConflicts(equalities: readonly Equality[]): void {
  const seen: string[][] = [];
  for (const eq of equalities) {
    const p = parts(eq.path);
    for (const q of seen) {
      if (isPrefixOf(q, p) || isPrefixOf(p, q)) {
        const [longer, shorter] = p.length >= q.length ? [p, q] : [q, p];
        const message =
          longer.length === shorter.length
            ? `cannot infer query fields to set, path '${eq.path}' is matched twice`
            : `cannot infer query fields to set, both paths '${longer.join('.')}' and '${shorter.join('.')}' are matched`;
        fail(ErrorCode.NotSingleValueField, message);
      }
    }
    seen.push(p);
  }
}

export function upsertSeed(filter: BsonDocument, options: UpsertSeedOptions = {}): BsonDocument {
  const all: Equality[] = [];
  extract(filter, all);
  let equalities = all;
  if (options.replacement === true) {
    equalities = [];
    for (const eq of all) {
      const p = parts(eq.path);
      if (p[0] !== '_id') continue;
      if (p.length > 1) {
        fail(
          ErrorCode.NotExactValueField,
          `field at '_id' must be exactly specified, field at sub-path '${eq.path}'found`,
        );
      }
      equalities.push(eq);
    }
  }
  const sorted = [...equalities].sort((a, b) => compareStrings(a.path, b.path));
  checkConflicts(sorted);
  const seed: BsonDocument = {};
  for (const eq of sorted) setValueAt(seed, parts(eq.path), eq.value);
  return moveIdFirst(seed);
}

/** mongod's ensureIdFieldIsFirst (without generating one). */
export function moveIdFirst(doc: BsonDocument): BsonDocument {
  const keys = Object.keys(doc);
  if (!hasOwn(doc, '_id') || keys[0] === '_id') return doc;
  const out: BsonDocument = {};
  setOwn(out, '_id', doc['_id'] as BsonValue);
  for (const k of keys) if (k !== '_id') setOwn(out, k, doc[k] as BsonValue);
  return out;
}
