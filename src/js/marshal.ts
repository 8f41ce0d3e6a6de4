// The host side of the marshalling between BSON values and the sandbox (prelude.ts has the
// other side): a value crosses as JSON text in which BSON types are tagged objects ({$oid},
// {$numberLong}, {$date}, ...) and every document is {$doc: [[key, value], ...]}, so that no
// key of a user's document is ever taken for a tag. int32 and double become JS numbers, as
// in mongod's engine; a number coming back is a double unless the code made it a NumberInt or
// NumberLong. What comes back is untrusted text (user code can replace JSON or Array in its
// own context): it is parsed strictly and every key is set with setOwn.

import {
  Binary,
  BSONRegExp,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { bsonTypeName } from '../bson/types.js';
import { setOwn } from '../bson/document.js';
import { ErrorCode, fail } from '../errors.js';

/** JSON text of `v` for the sandbox's decoder. */
export function toSandbox(v: BsonValue): string {
  const out: string[] = [];
  write(v, out);
  return out.join('');
}

function num(n: number, out: string[]): void {
  if (Number.isFinite(n) && !Object.is(n, -0)) out.push(JSON.stringify(n));
  else out.push(`{"$numberDouble":"${Object.is(n, -0) ? '-0' : String(n)}"}`);
}

function write(v: BsonValue, out: string[]): void {
  switch (bsonTypeName(v)) {
    case 'null':
      out.push('null');
      return;
    case 'undefined':
      out.push('{"$undefined":true}');
      return;
    case 'bool':
      out.push(v === true ? 'true' : 'false');
      return;
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'symbol':
      out.push(JSON.stringify(String((v as { value: unknown }).value)));
      return;
    case 'double':
      num(typeof v === 'number' ? v : (v as Double).value, out);
      return;
    case 'int':
      num((v as Int32).value, out);
      return;
    case 'long':
      out.push(`{"$numberLong":"${(v as Long).toString()}"}`);
      return;
    case 'decimal':
      out.push(`{"$numberDecimal":${JSON.stringify((v as Decimal128).toString())}}`);
      return;
    case 'objectId':
      out.push(`{"$oid":"${(v as ObjectId).toHexString()}"}`);
      return;
    case 'date': {
      const ms = (v as Date).getTime();
      out.push(`{"$date":${Number.isFinite(ms) ? ms : 0}}`);
      return;
    }
    case 'timestamp': {
      const t = v as Timestamp;
      out.push(`{"$timestamp":{"t":${t.t},"i":${t.i}}}`);
      return;
    }
    case 'binData': {
      const b = v as Binary;
      out.push(`{"$binary":{"base64":"${b.toString('base64')}","subType":${b.sub_type}}}`);
      return;
    }
    case 'regex': {
      const r = v as BSONRegExp;
      // JavaScript knows i, m, s, u, y, g; mongod's x (extended) and l have no equivalent.
      const flags = [...r.options].filter((f) => 'imsu'.includes(f)).join('');
      out.push(`{"$regex":${JSON.stringify(r.pattern)},"$options":"${flags}"}`);
      return;
    }
    case 'javascript':
    case 'javascriptWithScope':
      out.push(`{"$code":${JSON.stringify(String((v as Code).code))}}`);
      return;
    case 'minKey':
      out.push('{"$minKey":1}');
      return;
    case 'maxKey':
      out.push('{"$maxKey":1}');
      return;
    case 'array': {
      out.push('[');
      (v as BsonValue[]).forEach((e, i) => {
        if (i > 0) out.push(',');
        write(e, out);
      });
      out.push(']');
      return;
    }
    default: {
      // A document (DBRef included, as its fields).
      const doc = (
        bsonTypeName(v) === 'object' && (v as { _bsontype?: string })._bsontype === 'DBRef'
          ? (v as unknown as { toJSON(): BsonDocument }).toJSON()
          : v
      ) as BsonDocument;
      out.push('{"$doc":[');
      let first = true;
      for (const key of Object.keys(doc)) {
        if (!first) out.push(',');
        first = false;
        out.push('[', JSON.stringify(key), ',');
        write(doc[key] as BsonValue, out);
        out.push(']');
      }
      out.push(']}');
    }
  }
}

function bad(what: string): never {
  fail(ErrorCode.JSInterpreterFailure, `could not convert the JavaScript value: ${what}`);
}

/** The BSON value of the sandbox's JSON text. */
export function fromSandbox(text: string): BsonValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    bad('malformed');
  }
  return convert(parsed, 0);
}

const DEPTH_MAX = 200;

function convert(v: unknown, depth: number): BsonValue {
  if (depth > DEPTH_MAX) bad('too deep');
  if (v === null) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return new Double(v);
    case 'object':
      break;
    default:
      bad(typeof v);
  }
  if (Array.isArray(v)) return v.map((e) => convert(e, depth + 1));
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  const tag = keys[0];
  if (tag === undefined) bad('untagged object');
  const arg = o[tag];
  switch (tag) {
    case '$doc': {
      if (!Array.isArray(arg)) bad('$doc');
      const doc: BsonDocument = {};
      for (const entry of arg) {
        if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string')
          bad('$doc entry');
        setOwn(doc, entry[0], convert(entry[1], depth + 1));
      }
      return doc;
    }
    case '$oid':
      if (typeof arg !== 'string' || !/^[0-9a-f]{24}$/.test(arg)) bad('$oid');
      return ObjectId.createFromHexString(arg);
    case '$date':
      if (typeof arg !== 'number') bad('$date');
      return new Date(arg);
    case '$numberLong':
      if (typeof arg !== 'string' || !/^-?[0-9]+$/.test(arg)) bad('$numberLong');
      return Long.fromString(arg);
    case '$numberInt':
      if (typeof arg !== 'number') bad('$numberInt');
      return new Int32(arg | 0);
    case '$numberDouble':
      if (typeof arg !== 'string') bad('$numberDouble');
      return new Double(Number(arg));
    case '$numberDecimal':
      if (typeof arg !== 'string') bad('$numberDecimal');
      try {
        return Decimal128.fromString(arg);
      } catch {
        return Decimal128.fromString('NaN');
      }
    case '$timestamp': {
      const t = arg as { t?: unknown; i?: unknown } | null;
      if (t === null || typeof t !== 'object' || typeof t.t !== 'number' || typeof t.i !== 'number')
        bad('$timestamp');
      return new Timestamp({ t: t.t >>> 0, i: t.i >>> 0 });
    }
    case '$binary': {
      const b = arg as { base64?: unknown; subType?: unknown } | null;
      if (
        b === null ||
        typeof b !== 'object' ||
        typeof b.base64 !== 'string' ||
        typeof b.subType !== 'number'
      )
        bad('$binary');
      return new Binary(Buffer.from(b.base64, 'base64'), b.subType & 0xff);
    }
    case '$regex': {
      const options = o['$options'];
      if (typeof arg !== 'string' || typeof options !== 'string') bad('$regex');
      const flags = [...options].filter((f) => 'ims'.includes(f)).join('');
      return new BSONRegExp(arg, flags);
    }
    case '$code':
      if (typeof arg !== 'string') bad('$code');
      return new Code(arg);
    case '$minKey':
      return new MinKey();
    case '$maxKey':
      return new MaxKey();
    case '$undefined':
      return null;
    default:
      bad(`unknown tag ${tag}`);
  }
}
