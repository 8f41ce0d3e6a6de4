// The character rules of text index version 3 (mongod's src/mongo/db/fts/unicode): which code
// points separate words, case folding (with Turkish dotted/dotless i), and diacritic removal.
//
// - Delimiters are the code points with the Unicode properties White_Space, Dash, Hyphen,
//   Quotation_Mark, Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal, except that the
//   apostrophe is part of a word in English ("don't" is one word, and a stop word).
// - Case folding is simple (one code point to one code point).
// - Removing diacritics drops code points with the Diacritic property and maps a letter to the
//   letter its canonical decomposition has once its diacritics are gone (é → e), when that
//   recomposes into one code point.
//
// JavaScript's regular expressions carry the current Unicode database; mongod generated its
// tables from Unicode 8.0, so characters assigned since then may be classified differently.

/** Hyphen is a deprecated property JavaScript does not know; its code points, listed. */
const delimiterPattern =
  /[\p{White_Space}\p{Dash}\p{Quotation_Mark}\p{Terminal_Punctuation}\p{Pattern_Syntax}\p{Sentence_Terminal}\u00AD\u058A\u1806\u2010\u2011\u2E17\u30FB\uFE63\uFF0D\uFF65]/u;
const diacriticPattern = /\p{Diacritic}/u;

const APOSTROPHE = 0x27;

/** Whether a string holds only ASCII (the fast paths of tokenizing and folding). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

const asciiDelimiters = new Uint8Array(128);
for (let cp = 0; cp < 128; cp++)
  asciiDelimiters[cp] = delimiterPattern.test(String.fromCodePoint(cp)) ? 1 : 0;
const delimiterCache = new Map<number, boolean>();

/** Whether a code point separates words (`english`: the apostrophe does not). */
export function isDelimiter(cp: number, english: boolean): boolean {
  if (cp < 128) return cp === APOSTROPHE ? !english : asciiDelimiters[cp] === 1;
  let d = delimiterCache.get(cp);
  if (d === undefined) {
    d = delimiterPattern.test(String.fromCodePoint(cp));
    delimiterCache.set(cp, d);
  }
  return d;
}

/** Lower-case forms that simple case folding maps further (CaseFolding.txt, status C). */
const foldSpecial = new Map<number, number>([
  [0x00b5, 0x03bc], // micro sign → mu
  [0x017f, 0x0073], // long s → s
  [0x03c2, 0x03c3], // final sigma → sigma
  [0x03d0, 0x03b2],
  [0x03d1, 0x03b8],
  [0x03d5, 0x03c6],
  [0x03d6, 0x03c0],
  [0x03f0, 0x03ba],
  [0x03f1, 0x03c1],
  [0x03f5, 0x03b5],
  [0x1e9b, 0x1e61],
  [0x1fbe, 0x03b9],
]);
const foldCache = new Map<number, number>();

/** Simple case folding of one code point; `turkish` folds I to ı and İ to i. */
export function foldCodePoint(cp: number, turkish: boolean): number {
  if (cp < 128) {
    if (cp >= 0x41 && cp <= 0x5a) return turkish && cp === 0x49 ? 0x131 : cp + 32;
    return cp;
  }
  if (turkish && cp === 0x130) return 0x69;
  let f = foldCache.get(cp);
  if (f === undefined) {
    const special = foldSpecial.get(cp);
    if (special !== undefined) f = special;
    else {
      const lower = String.fromCodePoint(cp).toLowerCase();
      const first = lower.codePointAt(0) ?? cp;
      f =
        lower.length === String.fromCodePoint(first).length
          ? (foldSpecial.get(first) ?? first)
          : cp;
    }
    foldCache.set(cp, f);
  }
  return f;
}

const NO_CODE_POINT = -1;
const diacriticCache = new Map<number, number>();

/** The code point without its diacritics; NO_CODE_POINT (-1) for a code point that is one. */
function stripCodePoint(cp: number): number {
  if (cp < 0x5e) return cp;
  let r = diacriticCache.get(cp);
  if (r !== undefined) return r;
  const ch = String.fromCodePoint(cp);
  if (diacriticPattern.test(ch)) r = NO_CODE_POINT;
  else {
    let kept = '';
    for (const part of ch.normalize('NFD')) if (!diacriticPattern.test(part)) kept += part;
    const recomposed = kept.normalize('NFC');
    const first = recomposed.codePointAt(0);
    r =
      first !== undefined && recomposed.length === String.fromCodePoint(first).length ? first : cp;
  }
  diacriticCache.set(cp, r);
  return r;
}

export interface FoldOptions {
  /** Fold case (false keeps it: case-sensitive search). */
  readonly foldCase: boolean;
  /** Remove diacritics (false keeps them: diacritic-sensitive search). */
  readonly stripDiacritics: boolean;
  readonly turkish: boolean;
}

/** A string case-folded and/or without diacritics, code point by code point. */
export function foldString(s: string, options: FoldOptions): string {
  if (!options.foldCase && !options.stripDiacritics) return s;
  if (isAscii(s)) {
    // ASCII: its only diacritics are ^ and `, and its case folding is toLowerCase's.
    let out = options.stripDiacritics ? s.replace(/[\^`]/g, '') : s;
    if (options.foldCase)
      out = options.turkish ? out.replace(/I/g, '\u0131').toLowerCase() : out.toLowerCase();
    return out;
  }
  let out = '';
  for (const ch of s) {
    let cp = ch.codePointAt(0) as number;
    if (options.stripDiacritics) {
      cp = stripCodePoint(cp);
      if (cp === NO_CODE_POINT) continue;
    }
    if (options.foldCase) cp = foldCodePoint(cp, options.turkish);
    out += String.fromCodePoint(cp);
  }
  return out;
}
