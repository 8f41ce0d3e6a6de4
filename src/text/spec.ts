// A text index's specification and what it makes of a document (mongod's FTSSpec,
// FTSElementIterator and FTSIndexFormat, text index version 3):
//
// - the stored spec has key {<before fields>, _fts: "text", _ftsx: 1, <after fields>},
//   `weights` (field → integer weight, in field-name order; "$**" for every string field),
//   `default_language`, `language_override` and `textIndexVersion`;
// - the indexed strings are the strings at the weighted paths, through subdocuments and one
//   level of arrays (with "$**", every string in the document but the language override
//   field); a subdocument's language override field changes the language below it;
// - each string's terms are scored: a term seen n times among the string's N terms has
//   frequency 1 + 1/2 + ... + 1/2^(n-1), and scores weight × frequency × (0.5 × n/N + 0.5),
//   times 1.1 when the term is the whole string; a document's score for a term is the sum over
//   its strings;
// - the index holds one key per term: [before values, term, score, after values], a term
//   longer than 224 bytes cut to 224 bytes and the MD5 of the whole term (hex) appended.

import { createHash } from 'node:crypto';
import { Double } from 'bson';
import { getField, MISSING } from '../bson/path.js';
import { asDocument, isArray } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { formatBson } from '../bson/format.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import { textLanguage } from './languages.js';
import type { TextLanguage } from './languages.js';
import { indexTokenOptions, tokens } from './tokenizer.js';

export const TEXT_INDEX_VERSION = 3;
export const WILDCARD_WEIGHT_FIELD = '$**';
/** Weights are integers in (0, 100000) (mongod's MAX_WORD_WEIGHT). */
export const TEXT_WEIGHT_MAX = 100000;
const termKeyPrefixBytes = 224;

export interface TextSpec {
  /** Field → weight, ordered by field name (the wildcard is not in it). */
  readonly weights: ReadonlyMap<string, number>;
  readonly weightFields: readonly string[];
  readonly wildcard: boolean;
  readonly defaultLanguage: TextLanguage;
  readonly languageOverride: string;
  /** Key fields before and after the text part. */
  readonly extraBefore: readonly string[];
  readonly extraAfter: readonly string[];
  readonly version: number;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The runtime form of a stored (normalized) text index spec. */
export function textSpecOf(indexSpec: BsonDocument): TextSpec {
  const weightsDoc = asDocument(indexSpec['weights']) ?? {};
  const weights = new Map<string, number>();
  let wildcard = false;
  for (const [field, w] of Object.entries(weightsDoc)) {
    if (field === WILDCARD_WEIGHT_FIELD) wildcard = true;
    else weights.set(field, Number(w?.valueOf() ?? 1));
  }
  const weightFields = [...weights.keys()].sort(compareNames);
  const languageName = indexSpec['default_language'];
  const language =
    typeof languageName === 'string' ? textLanguage(languageName) : textLanguage('english');
  if (language === undefined) {
    throw new CommandError(
      ErrorCode.Location28682,
      `Unrecognized language ${String(languageName)} found for text index. Verify mongod was started with the correct options.`,
    );
  }
  const override = indexSpec['language_override'];
  const extraBefore: string[] = [];
  const extraAfter: string[] = [];
  let passed = false;
  for (const field of Object.keys(asDocument(indexSpec['key']) ?? {})) {
    if (field === '_fts' || field === '_ftsx') passed = true;
    else (passed ? extraAfter : extraBefore).push(field);
  }
  const version = Number(indexSpec['textIndexVersion']?.valueOf() ?? TEXT_INDEX_VERSION);
  return {
    weights,
    weightFields,
    wildcard,
    defaultLanguage: language,
    languageOverride: typeof override === 'string' ? override : 'language',
    extraBefore,
    extraAfter,
    version,
  };
}

// ---- the strings a document holds -----------------------------------------------------------

export interface TextElement {
  readonly text: string;
  readonly language: TextLanguage;
  readonly weight: number;
}

/** mongod's _getLanguageToUseV2: a (sub)document's override field, if any. */
function languageOf(spec: TextSpec, obj: BsonDocument, current: TextLanguage): TextLanguage {
  const v = getField(obj, spec.languageOverride);
  if (v === MISSING) return current;
  if (typeof v !== 'string') {
    throw new CommandError(
      ErrorCode.Location17261,
      'found language override field in document with non-string type',
    );
  }
  const language = textLanguage(v);
  if (language === undefined)
    throw new CommandError(ErrorCode.Location17262, `language override unsupported: ${v}`);
  return language;
}

/** The first weight field that is >= name (std::map::lower_bound), or undefined. */
function lowerBound(fields: readonly string[], name: string): string | undefined {
  let lo = 0;
  let hi = fields.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((fields[mid] as string) < name) lo = mid + 1;
    else hi = mid;
  }
  return fields[lo];
}

interface Frame {
  readonly entries: ReadonlyArray<readonly [string, BsonValue]>;
  readonly language: TextLanguage;
  readonly parentPath: string;
  readonly isArray: boolean;
}

function frameOf(
  spec: TextSpec,
  value: BsonDocument | readonly BsonValue[],
  language: TextLanguage,
  parentPath: string,
): Frame {
  if (isArray(value as BsonValue)) {
    const arr = value as readonly BsonValue[];
    return {
      entries: arr.map((v, i) => [String(i), v] as const),
      language,
      parentPath,
      isArray: true,
    };
  }
  const doc = value as BsonDocument;
  return {
    entries: Object.entries(doc),
    language: languageOf(spec, doc, language),
    parentPath,
    isArray: false,
  };
}

/** mongod's FTSElementIterator: the indexed strings of a document, depth first. */
export function* textElements(spec: TextSpec, doc: BsonDocument): Generator<TextElement> {
  const stack: Array<{ frame: Frame; at: number }> = [
    { frame: frameOf(spec, doc, spec.defaultLanguage, ''), at: 0 },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { frame: Frame; at: number };
    const entry = top.frame.entries[top.at];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    top.at++;
    const [fieldName, value] = entry;
    const { frame } = top;
    if (spec.wildcard && fieldName === spec.languageOverride) continue;
    const dotted =
      frame.parentPath === ''
        ? fieldName
        : frame.isArray
          ? frame.parentPath
          : `${frame.parentPath}.${fieldName}`;
    const sub = isArray(value) ? undefined : asDocument(value);
    const candidate = lowerBound(spec.weightFields, sub !== undefined ? `${dotted}.` : dotted);
    if (!spec.wildcard) {
      if (candidate === undefined) continue;
      if (candidate !== dotted && !candidate.startsWith(`${dotted}.`)) continue;
    }
    const exact = candidate === dotted;
    // mongod takes the weight of the first weight field at or after the path, even under "$**".
    const weight = candidate === undefined ? 1 : (spec.weights.get(candidate) ?? 1);
    if (typeof value === 'string') {
      if (exact || spec.wildcard) yield { text: value, language: frame.language, weight };
    } else if (sub !== undefined) {
      if (!exact || spec.wildcard)
        stack.push({ frame: frameOf(spec, sub, frame.language, dotted), at: 0 });
    } else if (isArray(value)) {
      if (!frame.isArray || spec.wildcard)
        stack.push({ frame: frameOf(spec, value, frame.language, dotted), at: 0 });
    }
  }
}

// ---- scores -----------------------------------------------------------------------------------

function equalAsciiCaseInsensitive(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

/** mongod's _scoreStringV2: adds one string's term scores to `scores`. */
function scoreString(
  raw: string,
  language: TextLanguage,
  weight: number,
  scores: Map<string, number>,
): void {
  const terms = new Map<string, { count: number; freq: number; exp: number }>();
  let numTokens = 0;
  for (const term of tokens(raw, language, indexTokenOptions)) {
    let data = terms.get(term);
    if (data === undefined) {
      data = { count: 0, freq: 0, exp: 0 };
      terms.set(term, data);
    }
    data.exp = data.exp === 0 ? 1 : data.exp * 2;
    data.count += 1;
    data.freq += 1 / data.exp;
    numTokens++;
  }
  const rawBytes = Buffer.byteLength(raw);
  for (const [term, data] of terms) {
    const coeff = (0.5 * data.count) / numTokens + 0.5;
    const adjustment =
      rawBytes === Buffer.byteLength(term) && equalAsciiCaseInsensitive(raw, term) ? 1.1 : 1;
    scores.set(term, (scores.get(term) ?? 0) + weight * data.freq * coeff * adjustment);
  }
}

/** Every term of a document with its score (mongod's FTSSpec::scoreDocument). */
export function scoreDocument(spec: TextSpec, doc: BsonDocument): Map<string, number> {
  const scores = new Map<string, number>();
  for (const e of textElements(spec, doc)) scoreString(e.text, e.language, e.weight, scores);
  return scores;
}

/** The term as the index stores it: long terms cut and suffixed with their MD5. */
export function indexedTerm(term: string): string {
  if (Buffer.byteLength(term) <= termKeyPrefixBytes) return term;
  let prefix = '';
  let bytes = 0;
  for (const ch of term) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > termKeyPrefixBytes) break;
    prefix += ch;
    bytes += n;
  }
  return prefix + createHash('md5').update(term).digest('hex');
}

/** A value at a dotted path without expanding arrays (mongod's extractElementAtPath). */
function valueAtPath(doc: BsonDocument, path: string): BsonValue {
  let cur: BsonValue = doc;
  for (const part of path.split('.')) {
    const d = isArray(cur) ? undefined : asDocument(cur);
    if (d === undefined) return null;
    const v = getField(d, part);
    if (v === MISSING) return null;
    cur = v;
  }
  return cur;
}

/** The index keys of a document: one tuple [before..., term, score, after...] per term. */
export function textIndexKeys(spec: TextSpec, doc: BsonDocument): BsonValue[][] {
  const before = spec.extraBefore.map((p) => {
    const v = valueAtPath(doc, p);
    if (isArray(v)) {
      throw new CommandError(
        ErrorCode.Location16675,
        'cannot have a multi-key as a prefix to a text index',
      );
    }
    return v;
  });
  const after = spec.extraAfter.map((p) => valueAtPath(doc, p));
  const scores = scoreDocument(spec, doc);
  if (scores.size > limits.textTermsPerDocumentMax) {
    throw new CommandError(
      ErrorCode.Location16732,
      `too many unique keys for a single document to have a text index, max is ${scores.size}${formatBson(getField(doc, '_id') === MISSING ? null : (getField(doc, '_id') as BsonValue))}`,
    );
  }
  const keys: BsonValue[][] = [];
  for (const [term, score] of scores)
    keys.push([...before, indexedTerm(term), new Double(score), ...after]);
  return keys;
}
