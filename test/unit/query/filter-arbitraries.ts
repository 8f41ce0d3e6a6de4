// Generated filters over the field names of test/unit/bson/arbitraries.ts: paths (dotted, into
// arrays, `__proto__`, DBRef fields), comparisons, $in/$nin, $exists, $type, $size,
// $elemMatch, $not, and $or/$and/$nor of them. Some are refused (an undefined operand, a
// regex under $ne ...): the caller compares the refusal too.

import fc from 'fast-check';
import { Int32 } from 'bson';
import { setOwn } from '../../../src/bson/document.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { bsonValueArb } from '../bson/arbitraries.js';

const pathArb = fc.constantFrom(
  'a',
  'b',
  '_id',
  '10',
  '__proto__',
  'constructor',
  'é',
  'a.b',
  'a.0',
  'b.a',
  'a.__proto__',
  'a.$id',
  'a.$ref',
  'a.10.b',
  'n10',
);
const operandArb = bsonValueArb({ maxDepth: 1, maxLength: 3 });

function one(path: string, condition: BsonValue): BsonDocument {
  const f: BsonDocument = {};
  setOwn(f, path, condition);
  return f;
}

const leafArb: fc.Arbitrary<BsonDocument> = fc.oneof(
  fc.tuple(pathArb, operandArb).map(([p, v]) => one(p, v)),
  fc
    .tuple(pathArb, fc.constantFrom('$eq', '$ne', '$gt', '$gte', '$lt', '$lte'), operandArb)
    .map(([p, op, v]) => one(p, one(op, v))),
  fc
    .tuple(pathArb, fc.constantFrom('$in', '$nin'), fc.array(operandArb, { maxLength: 3 }))
    .map(([p, op, vs]) => one(p, one(op, vs))),
  // Often true on generated documents: the branches of an $or each get to decide.
  {
    weight: 3,
    arbitrary: fc.tuple(pathArb, fc.boolean()).map(([p, b]) => one(p, { $exists: b })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(pathArb, fc.constantFrom('number', 'string', 'object', 'array', 'null', 'undefined'))
      .map(([p, t]) => one(p, { $type: t })),
  },
  fc.tuple(pathArb, fc.nat(3)).map(([p, n]) => one(p, { $size: new Int32(n) })),
  fc.tuple(pathArb, operandArb).map(([p, v]) => one(p, { $elemMatch: { $eq: v } })),
  fc.tuple(pathArb, pathArb, operandArb).map(([p, q, v]) => one(p, { $elemMatch: one(q, v) })),
  fc.tuple(pathArb, operandArb).map(([p, v]) => one(p, { $not: { $eq: v } })),
);

export const filterArb: fc.Arbitrary<BsonDocument> = fc.letrec<{ f: BsonDocument }>((tie) => ({
  f: fc.oneof(
    { maxDepth: 2, depthSize: 'small' },
    leafArb,
    fc.tuple(tie('f'), tie('f')).map(([x, y]) => ({ $or: [x, y] })),
    fc.tuple(tie('f'), tie('f')).map(([x, y]) => ({ $and: [x, y] })),
    tie('f').map((x) => ({ $nor: [x] })),
    fc.tuple(leafArb, leafArb).map(([x, y]) => ({ ...x, ...y })),
  ),
})).f;
