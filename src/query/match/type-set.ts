// Sets of BSON types as $type and $jsonSchema's type/bsonType name them (mongod's
// MatcherTypeSet): numeric codes, string aliases, and "number" for every numeric type.

import { BsonType, bsonTypeName } from '../../bson/types.js';
import { isNumeric } from '../../bson/numeric.js';
import type { BsonTypeName, BsonValue } from '../../bson/types.js';
import { isMissing } from '../../bson/path.js';
import type { PathValue } from '../../bson/path.js';
import { ErrorCode, fail } from '../../errors.js';
import { parseIntegerToInt, toJsNumber } from './numbers.js';

export interface TypeSet {
  /** "number": double, int, long and decimal. */
  readonly allNumbers: boolean;
  readonly types: ReadonlySet<BsonTypeName>;
}

export const NUMBER_ALIAS = 'number';

const typeByCode = new Map<number, BsonTypeName>(
  Object.entries(BsonType).map(([name, code]) => [code, name as BsonTypeName]),
);

/** $jsonSchema "type" names the JSON types only; "bsonType" takes every $type alias. */
export const jsonTypeAliases: ReadonlyMap<string, BsonTypeName> = new Map<string, BsonTypeName>([
  ['array', 'array'],
  ['boolean', 'bool'],
  ['null', 'null'],
  ['object', 'object'],
  ['string', 'string'],
]);

export const bsonTypeAliases: ReadonlyMap<string, BsonTypeName> = new Map<string, BsonTypeName>(
  Object.keys(BsonType).map((name) => [name, name as BsonTypeName]),
);

export class TypeSetBuilder {
  allNumbers = false;
  readonly types = new Set<BsonTypeName>();

  build(): TypeSet {
    return { allNumbers: this.allNumbers, types: this.types };
  }

  get isEmpty(): boolean {
    return !this.allNumbers && this.types.size === 0;
  }

  /** Adds a string alias; unknown names answer BadValue as mongod's addAliasToTypeSet. */
  addAlias(alias: string, aliases: ReadonlyMap<string, BsonTypeName>): void {
    if (alias === NUMBER_ALIAS) {
      this.allNumbers = true;
      return;
    }
    const t = aliases.get(alias);
    if (t !== undefined) {
      this.types.add(t);
      return;
    }
    if (alias === 'missing') {
      fail(
        ErrorCode.BadValue,
        "'missing' is not a legal type name. To query for non-existence of a field, use {$exists:false}.",
      );
    }
    fail(ErrorCode.BadValue, `Unknown type name alias: ${alias}`);
  }

  /** Adds a numeric type code ($type only). */
  addCode(v: BsonValue): void {
    const text = typeCodeText(v);
    const r = parseIntegerToInt('', v);
    if (!r.ok) fail(ErrorCode.BadValue, `Invalid numerical type code: ${text}`);
    const code = Number(r.value);
    if (code === 0)
      fail(
        ErrorCode.BadValue,
        `Invalid numerical type code: ${text}. Instead use {$exists:false}.`,
      );
    const t = typeByCode.get(code);
    if (t === undefined) fail(ErrorCode.BadValue, `Invalid numerical type code: ${text}`);
    this.types.add(t);
  }
}

function typeCodeText(v: BsonValue): string {
  const n = isNumeric(v) ? toJsNumber(v) : NaN;
  return Number.isNaN(n) ? 'nan' : String(n);
}

/** Parses the argument of $type: one code or alias, or an array of them (mongod's MatcherTypeSet::parse). */
export function parseMatchTypeSet(arg: BsonValue): TypeSet {
  const b = new TypeSetBuilder();
  const one = (v: BsonValue): void => {
    if (typeof v === 'string') b.addAlias(v, bsonTypeAliases);
    else if (isNumeric(v)) b.addCode(v);
    else fail(ErrorCode.TypeMismatch, 'type must be represented as a number or a string');
  };
  if (Array.isArray(arg)) for (const v of arg) one(v);
  else one(arg);
  return b.build();
}

export function typeSetHas(set: TypeSet, v: PathValue): boolean {
  if (isMissing(v)) return false;
  const t = bsonTypeName(v);
  if (set.allNumbers && (t === 'double' || t === 'int' || t === 'long' || t === 'decimal'))
    return true;
  return set.types.has(t);
}
