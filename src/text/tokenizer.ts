// mongod's UnicodeFTSTokenizer (text index version 3): words are the runs of code points
// between delimiters. Each word is lower-cased (case folding) and checked against the stop
// words; then the stemmer runs on it (on its original case for a case-sensitive search), and
// its diacritics are removed unless the search is diacritic-sensitive.

import type { TextLanguage } from './languages.js';
import { foldString, isAscii, isDelimiter } from './unicode.js';

export interface TokenizeOptions {
  /** Skip stop words (indexing and query terms do; matching does not). */
  readonly filterStopWords: boolean;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
}

export const indexTokenOptions: TokenizeOptions = {
  filterStopWords: true,
  caseSensitive: false,
  diacriticSensitive: false,
};

function asciiDelimiterClass(english: boolean): RegExp {
  let chars = '';
  for (let cp = 0; cp < 128; cp++)
    if (isDelimiter(cp, english)) chars += `\\x${cp.toString(16).padStart(2, '0')}`;
  return new RegExp(`[${chars}]+`);
}
const asciiDelimitersEnglish = asciiDelimiterClass(true);
const asciiDelimitersOther = asciiDelimiterClass(false);

/** The raw words of a text: runs of non-delimiter code points. */
export function* rawWords(text: string, english: boolean): Generator<string> {
  if (isAscii(text)) {
    for (const w of text.split(english ? asciiDelimitersEnglish : asciiDelimitersOther))
      if (w !== '') yield w;
    return;
  }
  let word = '';
  for (const ch of text) {
    if (isDelimiter(ch.codePointAt(0) as number, english)) {
      if (word !== '') yield word;
      word = '';
    } else word += ch;
  }
  if (word !== '') yield word;
}

/** The terms of a text for a language, as the index (or a query with `options`) sees them. */
export function* tokens(
  text: string,
  language: TextLanguage,
  options: TokenizeOptions,
): Generator<string> {
  const lowerOptions = { foldCase: true, stripDiacritics: false, turkish: language.turkish };
  const stripOptions = { foldCase: false, stripDiacritics: true, turkish: language.turkish };
  for (const raw of rawWords(text, language.english)) {
    const lower = foldString(raw, lowerOptions);
    if (options.filterStopWords && language.stopWords.has(lower)) continue;
    const stemmed = language.stem(options.caseSensitive ? raw : lower);
    yield options.diacriticSensitive ? stemmed : foldString(stemmed, stripOptions);
  }
}
