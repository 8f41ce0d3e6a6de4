// A $text search: its parameters, the parsed search string (mongod's FTSQueryImpl) and the
// document test (mongod's FTSMatcher).
//
// The search string is read as mongod's FTSQueryParser reads it: words, `"phrases"`, and `-` for
// negation when it follows whitespace (or starts the string); a negation lasts until the next
// whitespace ("-foo-bar" negates both). Terms are then the search words tokenized as the index
// tokenizes text (stop words dropped, stemmed, lower case, no diacritics); for a case- or
// diacritic-sensitive search the matching terms keep case or diacritics.
//
// A document matches when it holds one of the positive terms (the index guarantees it, so the
// test only checks it for a case- or diacritic-sensitive search), none of the negated terms, every
// positive phrase and no negated phrase (phrases are substrings, compared without case and
// diacritics unless the search is sensitive to them).

import type { BsonDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { textLanguage } from './languages.js';
import type { TextLanguage } from './languages.js';
import { textElements } from './spec.js';
import type { TextSpec } from './spec.js';
import { tokens } from './tokenizer.js';
import type { TokenizeOptions } from './tokenizer.js';
import { foldString } from './unicode.js';

export interface TextParams {
  readonly search: string;
  /** Empty: the index's default language. */
  readonly language: string;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') {
    const bsontype = (v as { _bsontype?: string })._bsontype;
    if (bsontype === 'Int32') return 'int';
    if (bsontype === 'Double') return 'double';
    if (bsontype === 'Long') return 'long';
    if (bsontype === 'Decimal128') return 'decimal';
    if (bsontype !== undefined) return bsontype.toLowerCase();
    return 'object';
  }
  return typeof v;
}

/** mongod's extractTextMatchExpressionParams: the $text operand, checked. */
export function parseTextParams(arg: unknown): TextParams {
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg) || '_bsontype' in arg)
    throw new CommandError(ErrorCode.BadValue, '$text expects an object');
  const obj = arg as Record<string, unknown>;
  const field = <T>(name: string, type: 'string' | 'bool', dflt: T): T | string | boolean => {
    if (!Object.prototype.hasOwnProperty.call(obj, name)) {
      if (name === '$search')
        throw new CommandError(ErrorCode.NoSuchKey, `Missing expected field "${name}"`);
      return dflt;
    }
    const v = obj[name];
    const ok = type === 'string' ? typeof v === 'string' : typeof v === 'boolean';
    if (!ok) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `"${name}" had the wrong type. Expected ${type}, found ${typeName(v)}`,
      );
    }
    return v as string | boolean;
  };
  const search = field('$search', 'string', '') as string;
  const language = field('$language', 'string', '') as string;
  const caseSensitive = field('$caseSensitive', 'bool', false) as boolean;
  const diacriticSensitive = field('$diacriticSensitive', 'bool', false) as boolean;
  const known = ['$search', '$language', '$caseSensitive', '$diacriticSensitive'];
  if (Object.keys(obj).some((k) => !known.includes(k)))
    throw new CommandError(ErrorCode.BadValue, 'extra fields in $text');
  return { search, language, caseSensitive, diacriticSensitive };
}

/** The parsed search string, as explain's parsedTextQuery shows it. */
export interface ParsedTextQuery {
  readonly terms: readonly string[];
  readonly negatedTerms: readonly string[];
  readonly phrases: readonly string[];
  readonly negatedPhrases: readonly string[];
  /** The index terms to scan for (positive terms, lower case, without diacritics). */
  readonly termsForBounds: readonly string[];
}

const WHITESPACE = new Set(['\n', '\v', '\f', '\r', ' ']);

interface QueryToken {
  readonly type: 'text' | 'delimiter';
  readonly data: string;
  readonly offset: number;
  readonly previousWhiteSpace: boolean;
}

/** mongod's FTSQueryParser: text runs and the delimiters '-' and '"', whitespace skipped. */
function queryTokens(raw: string): QueryToken[] {
  const out: QueryToken[] = [];
  const typeOf = (c: string): 'ws' | 'text' | 'delimiter' =>
    WHITESPACE.has(c) ? 'ws' : c === '-' || c === '"' ? 'delimiter' : 'text';
  let pos = 0;
  const skip = (): boolean => {
    const start = pos;
    while (pos < raw.length && typeOf(raw[pos] as string) === 'ws') pos++;
    return pos > start;
  };
  skip();
  let previousWhiteSpace = true;
  while (pos < raw.length) {
    const start = pos++;
    const type = typeOf(raw[start] as string) === 'text' ? 'text' : 'delimiter';
    if (type === 'text') while (pos < raw.length && typeOf(raw[pos] as string) === 'text') pos++;
    const token = { type, data: raw.slice(start, pos), offset: start, previousWhiteSpace } as const;
    previousWhiteSpace = skip();
    out.push(token);
  }
  return out;
}

function sorted(set: ReadonlySet<string>): string[] {
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** mongod's FTSQueryImpl::parse. */
export function parseTextQuery(params: TextParams, language: TextLanguage): ParsedTextQuery {
  let positive = '';
  let negative = '';
  const phrases: string[] = [];
  const negatedPhrases: string[] = [];
  let inNegation = false;
  let inPhrase = false;
  let quoteOffset = 0;
  for (const t of queryTokens(params.search)) {
    if (t.type === 'text') {
      if (inPhrase && inNegation) continue;
      if (inNegation && t.previousWhiteSpace) inNegation = false;
      if (inNegation) negative += `${t.data} `;
      else positive += `${t.data} `;
    } else if (t.data === '-') {
      if (!inPhrase && t.previousWhiteSpace) inNegation = true;
    } else if (inPhrase) {
      const phrase = params.search.slice(quoteOffset + 1, t.offset);
      (inNegation ? negatedPhrases : phrases).push(phrase);
      inPhrase = false;
    } else {
      inPhrase = true;
      if (inNegation && t.previousWhiteSpace) inNegation = false;
      quoteOffset = t.offset;
    }
  }
  const sensitive = params.caseSensitive || params.diacriticSensitive;
  const forBounds = new Set<string>();
  const terms = new Set<string>();
  const negatedTerms = new Set<string>();
  const add = (sentence: string, negated: boolean): void => {
    const active = negated ? negatedTerms : terms;
    const base = { filterStopWords: true, caseSensitive: false, diacriticSensitive: false };
    for (const word of tokens(sentence, language, base)) {
      if (!negated) forBounds.add(word);
      if (!sensitive) active.add(word);
    }
    if (!sensitive) return;
    const options: TokenizeOptions = {
      filterStopWords: true,
      caseSensitive: params.caseSensitive,
      diacriticSensitive: params.diacriticSensitive,
    };
    for (const word of tokens(sentence, language, options)) active.add(word);
  };
  add(positive, false);
  add(negative, true);
  return {
    terms: sorted(terms),
    negatedTerms: sorted(negatedTerms),
    phrases,
    negatedPhrases,
    termsForBounds: sorted(forBounds),
  };
}

/** A compiled $text search over one text index. */
export interface TextSearch {
  readonly params: TextParams;
  readonly spec: TextSpec;
  readonly language: TextLanguage;
  readonly query: ParsedTextQuery;
  /** mongod's FTSMatcher::matches (the positive terms are only checked when `checkTerms`). */
  matches(doc: BsonDocument, checkTerms?: boolean): boolean;
  /** The operand as explain's parsedQuery shows it. */
  readonly serialized: BsonDocument;
}

function unsupportedLanguage(name: string): CommandError {
  return new CommandError(
    ErrorCode.BadValue,
    `unsupported language: "${name}" for text index version 3`,
  );
}

export function compileTextSearch(spec: TextSpec, params: TextParams): TextSearch {
  const language = params.language === '' ? spec.defaultLanguage : textLanguage(params.language);
  if (language === undefined) throw unsupportedLanguage(params.language);
  const query = parseTextQuery(params, language);
  const positive = new Set(query.terms);
  const negated = new Set(query.negatedTerms);
  const matchOptions: TokenizeOptions = {
    filterStopWords: false,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
  };
  const anyTerm = (doc: BsonDocument, set: ReadonlySet<string>): boolean => {
    for (const e of textElements(spec, doc))
      for (const term of tokens(e.text, e.language, matchOptions)) if (set.has(term)) return true;
    return false;
  };
  const phraseIn = (doc: BsonDocument, phrase: string): boolean => {
    for (const e of textElements(spec, doc)) {
      const fold = {
        foldCase: !params.caseSensitive,
        stripDiacritics: !params.diacriticSensitive,
        turkish: e.language.turkish,
      };
      if (foldString(e.text, fold).includes(foldString(phrase, fold))) return true;
    }
    return false;
  };
  const sensitive = params.caseSensitive || params.diacriticSensitive;
  return {
    params,
    spec,
    language,
    query,
    serialized: {
      $text: {
        $search: params.search,
        $language: language.name,
        $caseSensitive: params.caseSensitive,
        $diacriticSensitive: params.diacriticSensitive,
      },
    },
    matches(doc, checkTerms = false) {
      if ((checkTerms || sensitive) && !anyTerm(doc, positive)) return false;
      if (negated.size > 0 && anyTerm(doc, negated)) return false;
      for (const p of query.phrases) if (!phraseIn(doc, p)) return false;
      for (const p of query.negatedPhrases) if (phraseIn(doc, p)) return false;
      return true;
    },
  };
}
