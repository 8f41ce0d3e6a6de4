// Render BSON values for error messages the way mongod's BSONObj::toString does:
// `{ _id: 1, name: "x", oid: ObjectId('…') }`. Used only for messages, never for data.

import { bsonTypeName, asDocument } from './types.js';
import type { BsonValue, Binary, BSONRegExp, Long, Double, Int32, Decimal128, ObjectId, Timestamp, Code } from './types.js';

const maxDepth = 20;

export function formatBson(v: BsonValue, depth = 0): string {
  if (depth > maxDepth) return '...';
  switch (bsonTypeName(v)) {
    case 'null':
      return 'null';
    case 'undefined':
      return 'undefined';
    case 'string':
      return JSON.stringify(v);
    case 'bool':
      return String(v);
    case 'int':
      return String((v as Int32).value);
    case 'long':
      return (v as Long).toString();
    case 'double': {
      const n = (v as Double).value;
      return Number.isInteger(n) && !Object.is(n, -0) ? `${n}.0` : String(n);
    }
    case 'decimal':
      return `NumberDecimal("${(v as Decimal128).toString()}")`;
    case 'objectId':
      return `ObjectId('${(v as ObjectId).toHexString()}')`;
    case 'date':
      return `new Date(${(v as Date).getTime()})`;
    case 'timestamp': {
      const ts = v as Timestamp;
      return `Timestamp(${ts.t}, ${ts.i})`;
    }
    case 'regex': {
      const r = v as BSONRegExp;
      return `/${r.pattern}/${r.options}`;
    }
    case 'binData': {
      const b = v as Binary;
      return `BinData(${b.sub_type}, ${Buffer.from(b.buffer.subarray(0, b.position)).toString('hex').toUpperCase()})`;
    }
    case 'minKey':
      return 'MinKey';
    case 'maxKey':
      return 'MaxKey';
    case 'javascript':
    case 'javascriptWithScope':
      return `function(${JSON.stringify((v as Code).code)})`;
    case 'array': {
      const items = (v as BsonValue[]).map((x) => formatBson(x, depth + 1));
      return items.length === 0 ? '[]' : `[ ${items.join(', ')} ]`;
    }
    case 'object':
    default: {
      const doc = asDocument(v) ?? {};
      const parts = Object.entries(doc).map(([k, x]) => `${k}: ${formatBson(x, depth + 1)}`);
      return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
    }
  }
}
