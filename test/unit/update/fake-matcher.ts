// A small query matcher for the update tests: enough of MongoDB's filter semantics for
// arrayFilters and $pull conditions (equality with implicit array traversal, comparison,
// $in/$nin, $exists, $size, $elemMatch, $not, $and/$or/$nor, $regex). It stands in for
// src/query/match so that these tests exercise the update layer alone; the update layer
// takes the real matcher the same way (dependency injection).

import { BSONRegExp } from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import { canonicalTypeRank, isArray, isPlainDocument } from '../../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import type { FilterMatcher } from '../../../src/update/index.js';

const MISSING = Symbol('missing');
type Found = BsonValue | typeof MISSING;

function valuesAt(value: Found, parts: readonly string[]): Found[] {
  if (parts.length === 0) return [value];
  const [part, ...rest] = parts as [string, ...string[]];
  if (isArray(value)) {
    const out: Found[] = [];
    if (/^\d+$/.test(part)) {
      const idx = Number(part);
      if (idx < value.length) out.push(...valuesAt(value[idx] as BsonValue, rest));
    }
    for (const el of value) if (isPlainDocument(el)) out.push(...valuesAt(el, parts));
    return out.length > 0 ? out : [MISSING];
  }
  if (isPlainDocument(value)) {
    return Object.prototype.hasOwnProperty.call(value, part)
      ? valuesAt(value[part] as BsonValue, rest)
      : [MISSING];
  }
  return [MISSING];
}

function equals(v: Found, target: BsonValue): boolean {
  if (v === MISSING) return target === null;
  if (target instanceof BSONRegExp && typeof v === 'string')
    return new RegExp(target.pattern, target.options.replace(/[^imsx]/g, '')).test(v);
  return canonicalTypeRank(v) === canonicalTypeRank(target) && compareBson(v, target) === 0;
}

type Pred = (v: Found) => boolean;

/** Apply to the value and, for arrays, to each element. */
function anyOf(v: Found, pred: Pred): boolean {
  return pred(v) || (isArray(v) && v.some((el) => pred(el as BsonValue)));
}

function compareOp(op: string, arg: BsonValue): Pred {
  return (v) => {
    if (v === MISSING || canonicalTypeRank(v) !== canonicalTypeRank(arg)) return false;
    const c = compareBson(v, arg);
    return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
  };
}

function operatorPredicate(op: string, arg: BsonValue): (v: Found) => boolean {
  switch (op) {
    case '$eq':
      return (v) => anyOf(v, (x) => equals(x, arg));
    case '$ne':
      return (v) => !anyOf(v, (x) => equals(x, arg));
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return (v) => anyOf(v, compareOp(op, arg));
    case '$in':
      return (v) => (arg as BsonValue[]).some((t) => anyOf(v, (x) => equals(x, t)));
    case '$nin':
      return (v) => !(arg as BsonValue[]).some((t) => anyOf(v, (x) => equals(x, t)));
    case '$exists':
      return (v) => (v !== MISSING) === Boolean(arg);
    case '$size':
      return (v) => isArray(v) && v.length === Number((arg as { valueOf(): number }).valueOf());
    case '$regex':
      return (v) => anyOf(v, (x) => typeof x === 'string' && new RegExp(String(arg)).test(x));
    case '$elemMatch': {
      const spec = arg as BsonDocument;
      const first = Object.keys(spec)[0];
      if (
        first !== undefined &&
        first.startsWith('$') &&
        !['$and', '$or', '$nor'].includes(first)
      ) {
        const p = conditionPredicate(spec);
        return (v) => isArray(v) && v.some((el) => p(el as BsonValue));
      }
      const m = compile(spec);
      return (v) => isArray(v) && v.some((el) => isPlainDocument(el) && m(el));
    }
    case '$not': {
      const p =
        arg instanceof BSONRegExp
          ? operatorPredicate('$eq', arg)
          : conditionPredicate(arg as BsonDocument);
      return (v) => !p(v);
    }
    default:
      throw new CommandError(2, `unknown operator: ${op}`);
  }
}

function conditionPredicate(cond: BsonValue): (v: Found) => boolean {
  if (
    isPlainDocument(cond) &&
    Object.keys(cond).length > 0 &&
    (Object.keys(cond)[0] as string).startsWith('$')
  ) {
    const preds = Object.keys(cond).map((op) => operatorPredicate(op, cond[op] as BsonValue));
    return (v) => preds.every((p) => p(v));
  }
  return operatorPredicate('$eq', cond);
}

function compile(filter: BsonDocument): (doc: BsonDocument) => boolean {
  const clauses: Array<(doc: BsonDocument) => boolean> = [];
  for (const key of Object.keys(filter)) {
    const value = filter[key] as BsonValue;
    if (key === '$and' || key === '$or' || key === '$nor') {
      const subs = (value as BsonDocument[]).map(compile);
      if (key === '$and') clauses.push((d) => subs.every((s) => s(d)));
      else if (key === '$or') clauses.push((d) => subs.some((s) => s(d)));
      else clauses.push((d) => !subs.some((s) => s(d)));
    } else if (key === '$alwaysTrue') {
      clauses.push(() => true);
    } else if (key === '$alwaysFalse') {
      clauses.push(() => false);
    } else if (key === '$comment') {
      continue;
    } else if (key === '$expr') {
      throw new CommandError(224, '$expr is not allowed in this context');
    } else if (key.startsWith('$')) {
      throw new CommandError(2, `unknown top level operator: ${key}`);
    } else {
      const parts = key.split('.');
      const pred = conditionPredicate(value);
      clauses.push((d) => {
        const found = valuesAt(d, parts);
        // A negation must hold for every reached value; anything else for one of them.
        const negative =
          isPlainDocument(value) && ['$ne', '$nin', '$not'].includes(Object.keys(value)[0] ?? '');
        return negative ? found.every((v) => pred(v)) : found.some((v) => pred(v));
      });
    }
  }
  return (doc) => clauses.every((c) => c(doc));
}

export function fakeCompileFilter(filter: BsonDocument): FilterMatcher {
  const m = compile(filter);
  return { matches: (doc) => m(doc) };
}
