// arrayFilters: each filter names one identifier by its single top-level field ({i: {$gt: 1}}
// or {"i.x": 1} name `i`), which `$[i]` in the update refers to. Parsed as mongod's
// ParsedUpdate::parseArrayFilters and ExpressionWithPlaceholder::make do.

import { isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode, fail, invariant, isCommandError } from '../errors.js';
import type { FilterCompiler, FilterMatcher } from './types.js';

const identifierPattern = /^[a-z][a-zA-Z0-9]*$/;
const logicalOperators = new Set(['$and', '$or', '$nor']);
const context = 'Error parsing array filter :: caused by :: ';

/** The one top-level field name the filter's expressions are over, if any (parseTopLevelFieldName). */
function topLevelName(filter: BsonDocument): string | undefined {
  let placeholder: string | undefined;
  const combine = (name: string | undefined): void => {
    if (placeholder === undefined) {
      placeholder = name;
    } else if (name !== undefined && name !== placeholder) {
      fail(
        ErrorCode.FailedToParse,
        `${context}Expected a single top-level field name, found '${placeholder}' and '${name}'`,
      );
    }
  };
  for (const key of Object.keys(filter)) {
    if (logicalOperators.has(key)) {
      const clauses = filter[key] as BsonValue;
      let inner: string | undefined;
      let first = true;
      if (isArray(clauses)) {
        for (const clause of clauses) {
          if (!isPlainDocument(clause)) continue;
          const name = topLevelName(clause);
          if (first) {
            inner = name;
            first = false;
          } else if (inner === undefined) {
            inner = name;
          } else if (name !== undefined && name !== inner) {
            fail(
              ErrorCode.FailedToParse,
              `${context}Expected a single top-level field name, found '${inner}' and '${name}'`,
            );
          }
        }
      }
      combine(inner);
    } else if (key.startsWith('$')) {
      combine(undefined);
    } else {
      combine(key.split('.')[0]);
    }
  }
  return placeholder;
}

export function compileArrayFilters(
  filters: readonly BsonDocument[] | undefined,
  compileFilter: FilterCompiler | undefined,
): Map<string, FilterMatcher> {
  const out = new Map<string, FilterMatcher>();
  if (filters === undefined) return out;
  filters.forEach((filter: unknown, i) => {
    if (!isPlainDocument(filter))
      fail(
        ErrorCode.TypeMismatch,
        `BSON field 'arrayFilters.${i}' is the wrong type, expected type 'object'`,
      );
    invariant(compileFilter !== undefined, 'arrayFilters need compileFilter in the update options');
    let matcher: FilterMatcher;
    try {
      matcher = compileFilter(filter);
    } catch (e) {
      if (isCommandError(e)) throw new CommandError(e.code, `${context}${e.message}`, { cause: e });
      throw e;
    }
    const name = topLevelName(filter);
    if (name !== undefined && !identifierPattern.test(name)) {
      fail(
        ErrorCode.BadValue,
        `${context}The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${name}'`,
      );
    }
    if (name === undefined)
      fail(
        ErrorCode.FailedToParse,
        'Cannot use an expression without a top-level field name in arrayFilters',
      );
    if (out.has(name))
      fail(
        ErrorCode.FailedToParse,
        `Found multiple array filters with the same top-level field name ${name}`,
      );
    out.set(name, matcher);
  });
  return out;
}
