// Collation: locale-aware string comparison, as mongod 7.0 does it with ICU. A collation
// document ({locale, strength, caseLevel, caseFirst, numericOrdering, alternate, maxVariable,
// normalization, backwards, version}) is checked with mongod's codes and mapped onto Node's
// Intl.Collator (ICU underneath). Only strings and symbols compare through a collator; every
// other value keeps compareBson's order. {locale: "simple"} is binary comparison: no collator.
//
// Approximations (Intl.Collator exposes less than ICU's attributes): strength 4 compares as 3
// with shifted punctuation breaking ties; alternate "shifted" ignores punctuation and spaces
// whatever maxVariable says; `backwards` is only accepted at the locale's own default.

import { CommandError, ErrorCode, missingFieldError } from '../errors.js';
import { Int32, isPlainDocument } from './types.js';
import type { BsonDocument, BsonValue } from './types.js';
import { bsonTypeName } from './types.js';
import { formatBson } from './format.js';
import { compareStrings } from './compare.js';
import type { Collator, Ordering } from './compare.js';

// The Collator interface lives with the comparisons that take one (compare.ts, the layer below).
export type { Collator } from './compare.js';

/** The ICU version mongod 7.0 reports in a collation's `version` field. */
export const COLLATION_VERSION = '57.1';

const FIELDS = new Set([
  'locale',
  'caseLevel',
  'caseFirst',
  'strength',
  'numericOrdering',
  'alternate',
  'maxVariable',
  'normalization',
  'backwards',
  'version',
]);

/** mongod's collation type names (locale@collation=X) and their BCP 47 spelling (-u-co-Y). */
const COLLATION_TYPES: Readonly<Record<string, string>> = {
  phonebook: 'phonebk',
  traditional: 'trad',
  dictionary: 'dict',
  gb2312han: 'gb2312',
};

/** Locales whose ICU default has French (backwards) secondary ordering. */
const BACKWARDS_LOCALES = new Set(['fr_CA']);

function typeName(v: BsonValue): string {
  return bsonTypeName(v);
}

function wrongType(field: string, v: BsonValue, expected: string): never {
  throw new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field 'collation.${field}' is the wrong type '${typeName(v)}', expected type '${expected}'`,
  );
}

function boolField(doc: BsonDocument, field: string, dflt: boolean): boolean {
  const v = doc[field];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') wrongType(field, v, 'bool');
  return v;
}

function enumField<T extends string>(
  doc: BsonDocument,
  field: string,
  allowed: readonly T[],
  dflt: T,
): T {
  const v = doc[field];
  if (v === undefined) return dflt;
  if (typeof v !== 'string') wrongType(field, v, 'string');
  if (!(allowed as readonly string[]).includes(v)) {
    throw new CommandError(
      ErrorCode.BadValue,
      `Enumeration value '${v}' for field 'collation.${field}' is not a valid value.`,
    );
  }
  return v as T;
}

function strengthField(doc: BsonDocument): number {
  const v = doc['strength'];
  if (v === undefined) return 3;
  const type = typeName(v);
  if (
    type !== 'int' &&
    type !== 'long' &&
    type !== 'double' &&
    type !== 'decimal' &&
    typeof v !== 'number'
  ) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'collation.strength' is the wrong type '${type}', expected types '[long, int, decimal, double]'`,
    );
  }
  const n = Number(typeof v === 'number' ? v : String((v as { valueOf(): unknown }).valueOf()));
  if (!Number.isInteger(n)) {
    throw new CommandError(
      ErrorCode.BadValue,
      `BSON field 'collation.strength' value must be an integer, actual value '${n}'`,
    );
  }
  if (n < 1)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'strength' value must be >= 1, actual value '${n}'`,
    );
  if (n > 5)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'strength' value must be <= 5, actual value '${n}'`,
    );
  return n;
}

/** The BCP 47 tag of a mongod (ICU) locale ID: en_US → en-US, de@collation=phonebook → de-u-co-phonebk. */
function bcp47Of(locale: string): string | undefined {
  const at = locale.indexOf('@');
  const base = (at < 0 ? locale : locale.slice(0, at)).replace(/_/g, '-');
  if (at < 0) return base;
  const m = /^collation=([a-z0-9]+)$/.exec(locale.slice(at + 1));
  if (m === null) return undefined;
  const type = m[1] as string;
  return `${base}-u-co-${COLLATION_TYPES[type] ?? type}`;
}

function invalidLocale(spec: BsonDocument): never {
  throw new CommandError(ErrorCode.BadValue, `Field 'locale' is invalid in: ${formatBson(spec)}`);
}

/** The ICU collator for a tag, or undefined when ICU would fall back to another locale. */
function intlCollator(
  spec: BsonDocument,
  locale: string,
  options: Intl.CollatorOptions,
): Intl.Collator {
  const tag = bcp47Of(locale);
  if (tag === undefined || !/^[A-Za-z0-9@=_-]+$/.test(locale)) invalidLocale(spec);
  let collator: Intl.Collator;
  try {
    collator = new Intl.Collator(tag, options);
  } catch {
    invalidLocale(spec);
  }
  if (collator.resolvedOptions().locale.toLowerCase() !== tag.toLowerCase()) invalidLocale(spec);
  return collator;
}

/**
 * Parses a collation document as mongod does: undefined for the simple collation
 * ({locale: "simple"}), a Collator otherwise. Throws CommandError with mongod's codes.
 */
export function parseCollation(value: BsonValue): Collator | undefined {
  if (!isPlainDocument(value)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'collation' is the wrong type '${typeName(value)}', expected type 'object'`,
    );
  }
  const spec = value;
  for (const k of Object.keys(spec)) {
    if (!FIELDS.has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'collation.${k}' is an unknown field.`,
      );
  }
  const locale = spec['locale'];
  if (locale === undefined) throw missingFieldError('collation.locale');
  if (typeof locale !== 'string') wrongType('locale', locale, 'string');
  if (locale === 'simple') {
    if (Object.keys(spec).length > 1) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        `If locale=simple, no other fields should be present in: ${formatBson(spec)}`,
      );
    }
    return undefined;
  }
  if (locale === '')
    throw new CommandError(
      ErrorCode.BadValue,
      `Field 'locale' cannot be the empty string in: ${formatBson(spec)}`,
    );
  if (locale.includes('\0'))
    throw new CommandError(
      ErrorCode.BadValue,
      `Field 'locale' cannot contain null byte. Collation spec: ${formatBson(spec)}`,
    );

  const caseLevel = boolField(spec, 'caseLevel', false);
  const caseFirst = enumField(spec, 'caseFirst', ['upper', 'lower', 'off'] as const, 'off');
  const strength = strengthField(spec);
  const numericOrdering = boolField(spec, 'numericOrdering', false);
  const alternate = enumField(
    spec,
    'alternate',
    ['non-ignorable', 'shifted'] as const,
    'non-ignorable',
  );
  const maxVariable = enumField(spec, 'maxVariable', ['punct', 'space'] as const, 'punct');
  const normalization = boolField(spec, 'normalization', false);
  const defaultBackwards = BACKWARDS_LOCALES.has(locale);
  const backwards = boolField(spec, 'backwards', defaultBackwards);
  const version = spec['version'];
  if (version !== undefined) {
    if (typeof version !== 'string') wrongType('version', version, 'string');
    if (version !== COLLATION_VERSION) {
      throw new CommandError(
        ErrorCode.IncompatibleCollationVersion,
        `Requested collation version ${version} but the only available collator version was ${COLLATION_VERSION}. Requested collation spec: ${formatBson(spec)}`,
      );
    }
  }
  const full: BsonDocument = {
    locale,
    caseLevel,
    caseFirst,
    strength: new Int32(strength),
    numericOrdering,
    alternate,
    maxVariable,
    normalization,
    backwards,
    version: COLLATION_VERSION,
  };
  if (backwards && strength === 1) {
    throw new CommandError(
      ErrorCode.BadValue,
      `'backwards' is invalid with 'strength' of 1 in: ${formatBson(full)}`,
    );
  }
  if (caseFirst !== 'off' && !caseLevel && strength < 3) {
    throw new CommandError(
      ErrorCode.BadValue,
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatBson(full)}`,
    );
  }
  const shifted = alternate === 'shifted';
  const base: Intl.CollatorOptions = {
    usage: 'sort',
    numeric: numericOrdering,
    caseFirst: caseFirst === 'off' ? 'false' : caseFirst,
    ignorePunctuation: shifted,
  };
  const sensitivity: Intl.CollatorOptions['sensitivity'] =
    strength === 1 ? (caseLevel ? 'case' : 'base') : strength === 2 ? 'accent' : 'variant';
  const main = intlCollator(spec, locale, { ...base, sensitivity });
  if (backwards !== defaultBackwards) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      `collation option 'backwards: ${backwards}' is not supported for locale '${locale}' (only the locale's default)`,
    );
  }
  // Later levels Intl.Collator cannot express as one sensitivity, applied as tie-breakers.
  const tieBreakers: Array<(a: string, b: string) => number> = [];
  if (strength === 2 && caseLevel)
    tieBreakers.push(intlCollator(spec, locale, { ...base, sensitivity: 'case' }).compare);
  if (strength >= 4 && shifted)
    tieBreakers.push(
      intlCollator(spec, locale, { ...base, ignorePunctuation: false, sensitivity: 'variant' })
        .compare,
    );
  if (strength === 5) tieBreakers.push(compareStrings);
  const compareMain = main.compare;
  const compare = (a: string, b: string): Ordering => {
    if (a === b) return 0;
    let c = compareMain(a, b);
    for (let i = 0; c === 0 && i < tieBreakers.length; i++)
      c = (tieBreakers[i] as (a: string, b: string) => number)(a, b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  };
  return { spec: full, compare };
}

/** Whether two optional collations are the same (both simple, or equal specifications). */
export function sameCollation(a: Collator | undefined, b: Collator | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return formatBson(a.spec) === formatBson(b.spec);
}
