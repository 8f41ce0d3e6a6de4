// Whether a value is an operator document ({$gt: 1}) rather than a literal, as mongod's
// isExpressionDocument decides: a non-empty document whose first field starts with '$' and
// that is not a DBRef ({$ref, $id}, or with `allowIncompleteDBRef` any of $ref/$id/$db).

import { DBRef, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';

export function isDBRefDocument(doc: BsonDocument, allowIncomplete: boolean): boolean {
  let hasRef = false;
  let hasId = false;
  let hasDb = false;
  for (const key of Object.keys(doc)) {
    if (hasRef && hasId) break;
    if (key === '$ref') hasRef = true;
    else if (key === '$id') hasId = true;
    else if (key === '$db') hasDb = true;
  }
  return allowIncomplete ? hasRef || hasId || hasDb : hasRef && hasId;
}

export function isExpressionDocument(
  v: BsonValue,
  allowIncompleteDBRef: boolean,
): v is BsonDocument {
  if (v instanceof DBRef || !isPlainDocument(v)) return false;
  const first = Object.keys(v)[0];
  if (first === undefined || !first.startsWith('$')) return false;
  return !isDBRefDocument(v, allowIncompleteDBRef);
}
