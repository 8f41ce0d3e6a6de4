// The languages of text index version 3, as mongod registers them (fts_language.cpp): fifteen
// Snowball languages by name or two-letter code, case-insensitive, and "none" (no stemming, no
// stop words). Stemming is Snowball's (the snowball-stemmers package, a JavaScript build of the
// Snowball algorithms mongod links as libstemmer); stop words are Snowball's lists
// (stop-words-data.ts) where Snowball has one. docs/compatibility.md lists the differences.

// Named imports: the package's CommonJS exports are flagged __esModule without a default, so a
// default import works in the ES module build but not in the CommonJS one (dist/cjs).
import { newStemmer } from 'snowball-stemmers';
import type { Stemmer } from 'snowball-stemmers';
import { limits } from '../limits.js';
import { snowballStopWords } from './stop-words-data.js';

export interface TextLanguage {
  /** The canonical name ("english"), as listIndexes and explain show it. */
  readonly name: string;
  /** The stem of a (lower-cased) word. */
  stem(word: string): string;
  readonly stopWords: ReadonlySet<string>;
  /** English keeps the apostrophe inside words. */
  readonly english: boolean;
  /** Turkish folds I to ı and İ to i. */
  readonly turkish: boolean;
}

const languageCodes: ReadonlyArray<readonly [string, string]> = [
  ['danish', 'da'],
  ['dutch', 'nl'],
  ['english', 'en'],
  ['finnish', 'fi'],
  ['french', 'fr'],
  ['german', 'de'],
  ['hungarian', 'hu'],
  ['italian', 'it'],
  ['norwegian', 'nb'],
  ['portuguese', 'pt'],
  ['romanian', 'ro'],
  ['russian', 'ru'],
  ['spanish', 'es'],
  ['swedish', 'sv'],
  ['turkish', 'tr'],
];

function makeLanguage(name: string): TextLanguage {
  const words = name === 'none' ? '' : (snowballStopWords[name] ?? '');
  const stopWords = new Set(words.split(' ').filter((w) => w !== ''));
  let stemmer: Stemmer | undefined;
  // Words repeat: a bounded cache of stems (cleared when full) saves most of the stemming.
  const cache = new Map<string, string>();
  const stem =
    name === 'none'
      ? (word: string): string => word
      : (word: string): string => {
          const known = cache.get(word);
          if (known !== undefined) return known;
          stemmer ??= newStemmer(name);
          const stemmed = stemmer.stem(word);
          if (cache.size >= limits.textStemCacheEntriesMax) cache.clear();
          cache.set(word, stemmed);
          return stemmed;
        };
  return { name, stem, stopWords, english: name === 'english', turkish: name === 'turkish' };
}

const byName = new Map<string, TextLanguage>();
{
  byName.set('none', makeLanguage('none'));
  for (const [name, code] of languageCodes) {
    const language = makeLanguage(name);
    byName.set(name, language);
    byName.set(code, language);
  }
}

/** The language a name or code stands for (any case), or undefined when mongod has none. */
export function textLanguage(name: string): TextLanguage | undefined {
  return byName.get(name.toLowerCase());
}
