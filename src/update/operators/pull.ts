// $pull: remove the elements that match a value or a condition (mongod's PullNode):
// - an object whose first field is not a query operator is a query on subdocument elements
//   ({$pull: {a: {x: 1}}} removes the subdocuments with x = 1; non-documents never match);
// - an object of operators ({$gt: 1}) or a regex is a condition on each element, matched as
//   the filter {"": cond} against the document {"": element};
// - anything else is an equality in BSON order.

import { BSONRegExp, DBRef } from 'bson';
import { compareBson } from '../../bson/compare.js';
import { setOwn } from '../../bson/document.js';
import { asDocument, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { invariant } from '../../errors.js';
import { isObjectLike } from '../state.js';
import { cullingModifier } from './array-culling.js';
import type { ModifierDefinition, ParseEnv } from './definition.js';

/** Query operators that apply to a path (MatchExpressionParser::parsePathAcceptingKeyword). */
const pathOperators = new Set([
  '$all',
  '$bitsAllClear',
  '$bitsAllSet',
  '$bitsAnyClear',
  '$bitsAnySet',
  '$elemMatch',
  '$eq',
  '$exists',
  '$geoIntersects',
  '$geoWithin',
  '$gt',
  '$gte',
  '$in',
  '$lt',
  '$lte',
  '$maxDistance',
  '$minDistance',
  '$mod',
  '$ne',
  '$near',
  '$nearSphere',
  '$nin',
  '$not',
  '$options',
  '$regex',
  '$size',
  '$type',
  '$within',
]);

function isPathOperator(name: string | undefined): boolean {
  return name !== undefined && (pathOperators.has(name) || name.startsWith('$_internal'));
}

function wrap(value: BsonValue): BsonDocument {
  const doc: BsonDocument = {};
  setOwn(doc, '', value);
  return doc;
}

function compile(env: ParseEnv, filter: BsonDocument) {
  invariant(
    env.compileFilter !== undefined,
    '$pull with a condition needs compileFilter in the update options',
  );
  return env.compileFilter(filter);
}

export const $pull: ModifierDefinition = {
  name: '$pull',
  parse(_path, value, env) {
    const condition =
      value instanceof DBRef ? asDocument(value) : isPlainDocument(value) ? value : undefined;
    if (condition !== undefined && !isPathOperator(Object.keys(condition)[0])) {
      const matcher = compile(env, condition);
      return cullingModifier(
        '$pull',
        (element) => isObjectLike(element) && matcher.matches(asDocument(element) ?? {}),
      );
    }
    if (condition !== undefined || value instanceof BSONRegExp) {
      const matcher = compile(env, wrap(value));
      return cullingModifier('$pull', (element) => matcher.matches(wrap(element)));
    }
    return cullingModifier('$pull', (element) => compareBson(element, value, env.collator) === 0);
  },
};
