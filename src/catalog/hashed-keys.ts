// Keys of a hashed index ({a: "hashed"}, or compound with one hashed field), as mongod's
// ExpressionKeysPrivate::getHashKeys: one key per document, never multikey. Each field's
// path is followed through subdocuments; an array anywhere along it, or at its end, is
// refused for every field of the index, hashed or not (16766, naming the path up to the
// array). A missing field is null (its hash is the hash of null); the hashed field holds
// hashBsonValue of its value (a Long), the others their value. A sparse index skips a
// document where no field has a value.

import { hashBsonValue } from '../bson/hash.js';
import { MISSING } from '../bson/path.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { valueAlongPath } from './index-keys.js';
import type { GeneratedKeys, KeyPatternField } from './index-keys.js';

function hashedArrayError(path: string): CommandError {
  return new CommandError(
    ErrorCode.Location16766,
    `Error: hashed indexes do not currently support array values. Found array at path: ${path}`,
  );
}

export function hashedIndexKeys(
  fields: readonly KeyPatternField[],
  doc: BsonDocument,
  sparse: boolean,
): GeneratedKeys {
  let found = false;
  const key: BsonValue[] = fields.map((f) => {
    const v = valueAlongPath(doc, f.parts, hashedArrayError);
    if (v !== MISSING) found = true;
    const value = v === MISSING ? null : v;
    return f.plugin === 'hashed' ? hashBsonValue(value) : value;
  });
  return {
    keys: sparse && !found ? [] : [key],
    multikeyPaths: fields.map(() => []),
  };
}
