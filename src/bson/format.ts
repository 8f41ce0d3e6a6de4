// Values rendered for error messages the way mongod's BSONElement::toString prints them, so
// that our messages read like mongod's: `{ _id: 1, a: "x" }`, `_id: ObjectId('…')`, `1.0`.
// Messages only: never parse this output.

import type {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Int32,
  Long,
  ObjectId,
  Timestamp,
} from 'bson';
import { Double } from 'bson';
import { asDocument, bsonTypeName } from './types.js';
import type { BsonDocument, BsonValue } from './types.js';

/** mongod stops printing nested values at this depth (BSONObj::maxToStringRecursionDepth). */
const formatDepthMax = 100;

/** mongod's StringBuilder::appendDoubleNice: printf("%.16g"), plus ".0" when it looks integral. */
export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'nan.0';
  if (!Number.isFinite(x)) return x > 0 ? 'inf.0' : '-inf.0';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  let text: string;
  if (exp < -4 || exp >= 16) {
    // %g switches to exponent form; it strips trailing zeros and prints at least two exponent digits.
    const [mantissa = '', e = '0'] = x.toExponential(15).split('e');
    const m = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const n = Number(e);
    text = `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  } else {
    text = x.toPrecision(16);
    if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  }
  // mongod only checks for '.', 'E' and 'N', so "1e+20" also gets ".0" appended.
  return /[.EN]/.test(text) ? text : `${text}.0`;
}

export function formatValue(v: BsonValue, depth = 0): string {
  if (depth > formatDepthMax) return '...';
  switch (bsonTypeName(v)) {
    case 'object': {
      const doc = asDocument(v) ?? {};
      return formatDocument(doc, depth);
    }
    case 'array': {
      const items = (v as BsonValue[]).map((x) => formatValue(x, depth + 1));
      return items.length === 0 ? '[]' : `[ ${items.join(', ')} ]`;
    }
    case 'double':
      return formatDouble(v instanceof Double ? v.value : (v as unknown as number));
    case 'int':
      return String((v as Int32).value);
    case 'long':
      return (v as Long).toString();
    case 'decimal':
      return (v as Decimal128).toString();
    case 'string':
      return `"${v as string}"`;
    case 'symbol':
      return `"${(v as BSONSymbol).value}"`;
    case 'bool':
      return v ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'undefined':
      return 'undefined';
    case 'date':
      return `new Date(${(v as Date).getTime()})`;
    case 'objectId':
      return `ObjectId('${(v as ObjectId).toHexString()}')`;
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
      const bytes = Buffer.from(b.buffer.subarray(0, b.position));
      return `BinData(${b.sub_type}, ${bytes.toString('hex').toUpperCase()})`;
    }
    case 'minKey':
      return 'MinKey';
    case 'maxKey':
      return 'MaxKey';
    case 'javascript':
      return (v as Code).code;
    case 'javascriptWithScope': {
      const c = v as Code;
      return `CodeWScope( ${c.code}, ${formatDocument((c.scope ?? {}) as BsonDocument, depth + 1)})`;
    }
    case 'dbPointer':
      return 'DBRef(...)';
  }
}

export function formatDocument(doc: BsonDocument, depth = 0): string {
  const parts = Object.keys(doc).map((k) => `${k}: ${formatValue(doc[k] as BsonValue, depth + 1)}`);
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

/** An element with its field name: `a: 1`. */
export function formatElement(name: string, v: BsonValue): string {
  return `${name}: ${formatValue(v)}`;
}

/** A value as mongod prints it in messages (alias of formatValue). */
export const formatBson = formatValue;
