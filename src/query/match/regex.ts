// Regular expressions: mongod compiles $regex patterns with PCRE2 (UTF mode, flags i m s x);
// we run them on JavaScript's RegExp. This module translates the PCRE dialect into an
// equivalent JavaScript pattern (with the `u` flag, for code-point semantics), and refuses with
// mongod's "Regular expression is invalid" (51091) what JavaScript cannot express faithfully
// (possessive quantifiers, atomic groups, recursion, conditionals, inline flags other than a
// leading group, ...).
//
// Where the two dialects differ in meaning, the translation follows PCRE:
// - `.` excludes only "\n" (PCRE's default newline), not "\r"/U+2028/U+2029 as JS does;
// - `$` (without m) also matches before a final "\n"; `^`/`$` with m break on "\n" only;
// - `\s` is ASCII whitespace (PCRE without UCP), JS's `\s` is Unicode whitespace;
// - `\A \z \Z \h \v \R \Q..\E \x{...}` and POSIX classes `[[:alpha:]]` are rewritten;
// - the `x` flag's whitespace and `#` comments are stripped here (JS has no `x`).
//
// Cost: JS regexes backtrack like PCRE does and cannot be interrupted; the pattern length is
// capped (limits.regexPatternLengthBytesMax, PCRE's own limit in mongod) and every search runs
// through regex-guard.ts, which bounds its running time.

import { BSONRegExp, BSONSymbol } from '../../bson/types.js';
import type { PathValue } from '../../bson/path.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { guardRegex } from './regex-guard.js';
import type { GuardedRegex } from './regex-guard.js';

const VALID_FLAGS = 'imsux';

export interface RegexFlags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

function invalid(reason: string): never {
  fail(ErrorCode.Location51091, `Regular expression is invalid: ${reason}`);
}

/** mongod's flag check (pcre_util::flagsToOptions): i m s x, and u which UTF mode implies. */
export function parseRegexFlags(options: string, opName = ''): RegexFlags {
  const flags: RegexFlags = { i: false, m: false, s: false, x: false };
  for (const c of options) {
    if (!VALID_FLAGS.includes(c))
      fail(ErrorCode.Location51108, `${opName} invalid flag in regex options: ${c}`);
    if (c !== 'u') flags[c as keyof RegexFlags] = true;
  }
  return flags;
}

/**
 * Compiles a pattern and its options as mongod's RegexMatchExpression does: flags first
 * (51108), then the embedded-NUL check (BadValue), then the pattern itself (51091).
 */
export function compileRegex(pattern: string, options: string, opName = '$regex'): GuardedRegex {
  const flags = parseRegexFlags(options);
  if (pattern.includes('\0'))
    fail(ErrorCode.BadValue, 'Regular expression cannot contain an embedded null byte');
  if (Buffer.byteLength(pattern, 'utf8') > limits.regexPatternLengthBytesMax) {
    invalid('pattern string is longer than the limit set by the application');
  }
  const { source, ignoreCase } = translatePcre(pattern, flags);
  try {
    return guardRegex(new RegExp(source, ignoreCase ? 'iu' : 'u'), opName);
  } catch (e) {
    invalid(
      e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : 'syntax error',
    );
  }
}

/**
 * The value test of a regex predicate: strings and symbols are searched; a regex value matches
 * when its pattern and options are the same strings (mongod compares them verbatim).
 */
export function regexValueTest(pattern: string, options: string): (v: PathValue) => boolean {
  const re = compileRegex(pattern, options);
  return (v) => {
    if (typeof v === 'string') return re.test(v);
    if (v instanceof BSONSymbol) return re.test(v.value);
    if (v instanceof BSONRegExp) return v.pattern === pattern && v.options === options;
    return false;
  };
}

// ---- translation ---------------------------------------------------------------------------

const LEADING_FLAGS = /^\(\?([imsxnU-]*)\)/;
const LEADING_VERB = /^\(\*([A-Z0-9_]+)\)/;
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;
const HEX = /^[0-9a-fA-F]$/;

const SPACE_CLASS = '\\t\\n\\v\\f\\r ';
const HSPACE_CLASS = '\\t \\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000';
const VSPACE_CLASS = '\\n\\v\\f\\r\\x85\\u2028\\u2029';

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  ascii: '\\x00-\\x7f',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: SPACE_CLASS,
  upper: 'A-Z',
  word: 'a-zA-Z0-9_',
  xdigit: '0-9a-fA-F',
};

/** PCRE's own properties (\p{Xan} ...), as class bodies. */
const PCRE_SPECIAL_PROPERTIES: Record<string, string> = {
  Xan: '\\p{L}\\p{N}',
  Xwd: '\\p{L}\\p{N}_',
  Xsp: `\\p{Z}${SPACE_CLASS}`,
  Xps: `\\p{Z}${SPACE_CLASS}`,
};

/** Under (*UCP) the POSIX classes that follow Unicode properties. */
const UCP_POSIX_CLASSES: Record<string, string> = {
  alnum: '\\p{L}\\p{N}',
  alpha: '\\p{L}',
  blank: HSPACE_CLASS,
  cntrl: '\\p{Cc}',
  digit: '\\p{Nd}',
  lower: '\\p{Ll}',
  space: `\\p{Z}${SPACE_CLASS}`,
  upper: '\\p{Lu}',
  word: '\\p{L}\\p{N}_',
};

const UCP_WORD = '[\\p{L}\\p{N}_]';

/** Escapes whose meaning (*UCP) widens from ASCII to Unicode. */
function ucpEscape(d: string, inClass: boolean): string | undefined {
  const sets: Record<string, string> = {
    w: '\\p{L}\\p{N}_',
    d: '\\p{Nd}',
    s: `\\p{Z}${SPACE_CLASS}`,
  };
  const positive = sets[d];
  if (positive !== undefined) return inClass ? positive : `[${positive}]`;
  const negated = sets[d.toLowerCase()];
  if (negated !== undefined && d !== d.toLowerCase()) {
    return inClass
      ? invalid(`\\${d} inside a character class is not supported with (*UCP)`)
      : `[^${negated}]`;
  }
  if (inClass) return undefined;
  const boundary = `(?:(?<=${UCP_WORD})(?!${UCP_WORD})|(?<!${UCP_WORD})(?=${UCP_WORD}))`;
  if (d === 'b') return boundary;
  if (d === 'B') return `(?!${boundary})`;
  return undefined;
}

function codePointEscape(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** A literal character, escaped for use outside a class. */
function literal(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** A literal character, escaped for use inside a class. */
function classLiteral(ch: string): string {
  return /[\\\]^[-]/.test(ch) ? `\\${ch}` : ch;
}

function isWordChar(ch: string): boolean {
  return /^[A-Za-z0-9]$/.test(ch);
}

class Translator {
  private i = 0;
  private groups = 0;
  private out = '';
  private readonly flags: RegexFlags;

  constructor(
    private readonly src: string,
    flags: RegexFlags,
  ) {
    this.flags = { ...flags };
  }

  /** (*UCP): \w, \d, \s, \b and POSIX classes follow Unicode properties instead of ASCII. */
  private ucp = false;

  run(): { source: string; ignoreCase: boolean } {
    this.leadingVerbs();
    this.leadingFlags();
    while (this.i < this.src.length) this.step();
    return { source: this.out, ignoreCase: this.flags.i };
  }

  /** Start-of-pattern options: (*UTF) and (*UTF8) (always on in mongod) and (*UCP). */
  private leadingVerbs(): void {
    for (;;) {
      const m = LEADING_VERB.exec(this.src.slice(this.i));
      if (!m) return;
      if (m[1] === 'UCP') this.ucp = true;
      else if (m[1] !== 'UTF' && m[1] !== 'UTF8') invalid(`(*${m[1] ?? ''}) is not supported`);
      this.i += m[0].length;
    }
  }

  /** `(?i)`-style groups at the very start set flags for the whole pattern. */
  private leadingFlags(): void {
    for (;;) {
      const m = LEADING_FLAGS.exec(this.src.slice(this.i));
      if (!m) return;
      let on = true;
      for (const c of m[1] ?? '') {
        if (c === '-') on = false;
        else if (c === 'i' || c === 'm' || c === 's' || c === 'x') this.flags[c] = on;
        else invalid(`inline flag '${c}' is not supported`);
      }
      this.i += m[0].length;
    }
  }

  private peek(offset = 0): string {
    return this.src[this.i + offset] ?? '';
  }

  private step(): void {
    const c = this.src[this.i] as string;
    if (this.flags.x && this.skipExtended(c)) return;
    this.i++;
    switch (c) {
      case '\\':
        this.out += this.escape(false);
        return;
      case '[':
        this.out += this.characterClass();
        return;
      case '.':
        this.out += this.flags.s ? '[\\s\\S]' : '[^\\n]';
        return;
      case '^':
        this.out += this.flags.m ? '(?:(?<![\\s\\S])|(?<=\\n)(?=[\\s\\S]))' : '(?<![\\s\\S])';
        return;
      case '$':
        this.out += this.flags.m ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
        return;
      case '(':
        this.out += this.group();
        return;
      case '*':
      case '+':
      case '?':
        this.out += c;
        this.afterQuantifier();
        return;
      case '{':
        this.brace();
        return;
      case '}':
      case ']':
      case '/':
        this.out += `\\${c}`;
        return;
      default:
        this.out += c;
    }
  }

  /** In extended mode, unescaped whitespace and `#...` comments outside classes vanish. */
  private skipExtended(c: string): boolean {
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      this.i++;
      return true;
    }
    if (c !== '#') return false;
    const end = this.src.indexOf('\n', this.i);
    this.i = end < 0 ? this.src.length : end + 1;
    return true;
  }

  private afterQuantifier(): void {
    const next = this.peek();
    if (next === '+') invalid('possessive quantifiers are not supported');
    if (next === '?') {
      this.out += '?';
      this.i++;
    }
  }

  private brace(): void {
    const m = QUANTIFIER.exec(this.src.slice(this.i - 1));
    if (!m) {
      this.out += '\\{'; // PCRE reads a brace that does not start a quantifier literally
      return;
    }
    this.out += m[0];
    this.i += m[0].length - 1;
    this.afterQuantifier();
  }

  private group(): string {
    if (this.peek() === '*') invalid('backtracking control verbs are not supported');
    if (this.peek() !== '?') {
      this.groups++;
      return '(';
    }
    const rest = this.src.slice(this.i + 1);
    if (rest.startsWith('#')) {
      const end = this.src.indexOf(')', this.i);
      if (end < 0) invalid('missing ) after (?# comment');
      this.i = end + 1;
      return '';
    }
    for (const prefix of [':', '=', '!', '<=', '<!']) {
      if (rest.startsWith(prefix)) {
        this.i += 1 + prefix.length;
        return `(?${prefix}`;
      }
    }
    const named = /^(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest);
    if (named) {
      this.i += 1 + named[0].length;
      this.groups++;
      return `(?<${named[1] ?? named[2]}>`;
    }
    const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (backref) {
      this.i += 1 + backref[0].length;
      return `\\k<${backref[1]}>`;
    }
    if (rest.startsWith('>')) invalid('atomic groups are not supported');
    if (rest.startsWith('|')) invalid('branch reset groups are not supported');
    if (rest.startsWith('(')) invalid('conditional groups are not supported');
    if (/^[imsxnU^-]/.test(rest))
      invalid('inline flags are only supported at the start of the pattern');
    invalid('recursion and subroutine calls are not supported');
  }

  // ---- escapes ----

  /** An escape after `\`; `inClass` selects the class forms. Returns JS source. */
  private escape(inClass: boolean): string {
    if (this.i >= this.src.length) invalid('\\ at end of pattern');
    const d = this.src[this.i] as string;
    this.i++;
    const unicode = this.ucp ? ucpEscape(d, inClass) : undefined;
    if (unicode !== undefined) return unicode;
    const fixed = inClass ? this.classEscape(d) : this.atomEscape(d);
    if (fixed !== undefined) return fixed;
    const shared = this.characterEscape(d, inClass);
    if (shared !== undefined) return shared;
    if (isWordChar(d)) invalid(`unrecognized character follows \\ (\\${d})`);
    // PCRE: any other escaped character stands for itself (JS's u mode is stricter).
    const cp = this.src.codePointAt(this.i - 1) ?? 0;
    if (cp > 0xffff) this.i++;
    const ch = String.fromCodePoint(cp);
    return inClass ? classLiteral(ch) : literal(ch);
  }

  private atomEscape(d: string): string | undefined {
    switch (d) {
      case 'A':
        return '(?<![\\s\\S])';
      case 'z':
        return '(?![\\s\\S])';
      case 'Z':
        return '(?=\\n?(?![\\s\\S]))';
      case 'b':
      case 'B':
        return `\\${d}`;
      case 's':
        return `[${SPACE_CLASS}]`;
      case 'S':
        return `[^${SPACE_CLASS}]`;
      case 'h':
        return `[${HSPACE_CLASS}]`;
      case 'H':
        return `[^${HSPACE_CLASS}]`;
      case 'v':
        return `[${VSPACE_CLASS}]`;
      case 'V':
        return `[^${VSPACE_CLASS}]`;
      case 'R':
        return `(?:\\r\\n|[${VSPACE_CLASS}])`;
      case 'N':
        if (this.peek() === '{') invalid('\\N{name} is not supported');
        return '[^\\n]';
      case 'Q':
        return this.quoted(false);
      case 'E':
        return '';
      case 'g':
      case 'k':
        return this.namedOrRelativeBackref(d);
      case 'G':
      case 'K':
      case 'X':
      case 'C':
        invalid(`\\${d} is not supported`);
    }
    if (d >= '1' && d <= '9') return this.numericEscape(d);
    return undefined;
  }

  private classEscape(d: string): string | undefined {
    switch (d) {
      case 'b':
        return '\\x08';
      case 's':
        return SPACE_CLASS;
      case 'h':
        return HSPACE_CLASS;
      case 'v':
        return VSPACE_CLASS;
      case 'S':
      case 'H':
      case 'V':
        return invalid(`\\${d} inside a character class is not supported`);
      case 'Q':
        return this.quoted(true);
      case 'E':
        return '';
    }
    if (d >= '1' && d <= '9') return codePointEscape(this.octalRun(d));
    return undefined;
  }

  /** Escapes meaning the same thing inside and outside classes. */
  private characterEscape(d: string, inClass: boolean): string | undefined {
    switch (d) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 'n':
      case 'r':
      case 't':
      case 'f':
        return `\\${d}`;
      case 'e':
        return '\\x1b';
      case 'a':
        return '\\x07';
      case '0':
        return codePointEscape(this.octalRun('0'));
      case 'o':
        return codePointEscape(this.braced(8, 'o'));
      case 'x':
        return codePointEscape(this.hexEscape());
      case 'c':
        return codePointEscape(this.controlEscape());
      case 'p':
      case 'P':
        return this.property(d, inClass);
      case 'u':
      case 'U':
      case 'l':
      case 'L':
      case 'F':
        invalid(`PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u`);
    }
    return undefined;
  }

  /** `\Q...\E`: everything literal. */
  private quoted(inClass: boolean): string {
    const end = this.src.indexOf('\\E', this.i);
    const text = this.src.slice(this.i, end < 0 ? undefined : end);
    this.i = end < 0 ? this.src.length : end + 2;
    return [...text].map(inClass ? classLiteral : literal).join('');
  }

  /** Up to three octal digits, the first already read. */
  private octalRun(first: string): number {
    let digits = first;
    while (digits.length < 3 && /[0-7]/.test(this.peek())) digits += this.src[this.i++];
    if (!/^[0-7]+$/.test(digits)) invalid(`\\${digits} is not a valid escape`);
    return parseInt(digits, 8);
  }

  /** `\1`...: a back reference when that many groups precede it or it is below 10; else octal. */
  private numericEscape(first: string): string {
    let digits = first;
    while (/[0-9]/.test(this.peek())) digits += this.src[this.i++];
    const n = Number(digits);
    if (n < 10 || first === '8' || first === '9' || n <= this.groups) return `\\${n}(?:)`;
    this.i -= digits.length - 1;
    return codePointEscape(this.octalRun(first));
  }

  private namedOrRelativeBackref(d: string): string {
    const m = /^(?:\{(-?\d+|[A-Za-z_]\w*)\}|<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)'|(-?\d+))/.exec(
      this.src.slice(this.i),
    );
    if (!m || (d === 'g' && m[2] !== undefined) || (d === 'g' && m[3] !== undefined)) {
      invalid(`\\${d} subroutine calls are not supported`);
    }
    this.i += m[0].length;
    const ref = m[1] ?? m[2] ?? m[3] ?? m[4] ?? '';
    if (!/^-?\d+$/.test(ref)) return `\\k<${ref}>`;
    const n = Number(ref);
    const abs = n < 0 ? this.groups + 1 + n : n;
    if (abs <= 0) invalid('reference to non-existent subpattern');
    return `\\${abs}(?:)`;
  }

  private braced(radix: 8 | 16, what: string): number {
    if (this.peek() !== '{') invalid(`\\${what} must be followed by {`);
    const end = this.src.indexOf('}', this.i);
    const body = end < 0 ? '' : this.src.slice(this.i + 1, end);
    const valid = radix === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/;
    if (!valid.test(body)) invalid(`invalid \\${what}{...} escape`);
    this.i = end + 1;
    const cp = parseInt(body, radix);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      invalid('character code point value is too large or a surrogate');
    return cp;
  }

  /** `\xHH` (up to two hex digits, none meaning NUL) or `\x{HHHH}`. */
  private hexEscape(): number {
    if (this.peek() === '{') return this.braced(16, 'x');
    let digits = '';
    while (digits.length < 2 && HEX.test(this.peek())) digits += this.src[this.i++];
    return digits === '' ? 0 : parseInt(digits, 16);
  }

  private controlEscape(): number {
    const ch = this.peek();
    const code = ch.charCodeAt(0);
    if (ch === '' || code < 32 || code > 126)
      invalid('\\c must be followed by a printable ASCII character');
    this.i++;
    return ch.toUpperCase().charCodeAt(0) ^ 0x40;
  }

  /** `\pL`, `\p{Lu}`, `\p{^Lu}`, `\p{Greek}` → JS property escapes. */
  private property(d: string, inClass: boolean): string {
    let name: string;
    if (this.peek() === '{') {
      const end = this.src.indexOf('}', this.i);
      if (end < 0) invalid('malformed \\p or \\P sequence');
      name = this.src.slice(this.i + 1, end);
      this.i = end + 1;
    } else {
      name = this.peek();
      this.i++;
    }
    let negate = d === 'P';
    if (name.startsWith('^')) {
      negate = !negate;
      name = name.slice(1);
    }
    if (name === 'Any') {
      if (inClass)
        return negate ? invalid('\\P{Any} inside a character class is not supported') : '\\s\\S';
      return negate ? '[^\\s\\S]' : '[\\s\\S]';
    }
    const special = PCRE_SPECIAL_PROPERTIES[name];
    if (special !== undefined) {
      if (!negate) return inClass ? special : `[${special}]`;
      return inClass
        ? invalid(`\\P{${name}} inside a character class is not supported`)
        : `[^${special}]`;
    }
    const jsName = name === 'L&' ? 'LC' : /^[A-Z][a-z]?$/.test(name) ? name : `Script=${name}`;
    return `\\${negate ? 'P' : 'p'}{${jsName}}`;
  }

  // ---- classes ----

  /** A bracketed class, `[` already read. */
  private characterClass(): string {
    let out = '[';
    if (this.peek() === '^') {
      out += '^';
      this.i++;
    }
    // A `]` first in the class is literal in PCRE; JS would read `[]` as an empty class.
    if (this.peek() === ']') {
      out += '\\]';
      this.i++;
    }
    let prevWasSet = false;
    for (;;) {
      if (this.i >= this.src.length) invalid('missing terminating ] for character class');
      const c = this.src[this.i] as string;
      this.i++;
      if (c === ']') return `${out}]`;
      if (c === '[' && this.peek() === ':') {
        out += this.posixClass();
        prevWasSet = true;
        continue;
      }
      if (c === '\\') {
        const isSet = /[dDwWsShHvVpP]/.test(this.peek());
        out += this.escape(true);
        prevWasSet = isSet;
        continue;
      }
      if (c === '-' && (prevWasSet || this.nextIsClassSet())) {
        out += '\\-'; // PCRE keeps a hyphen next to a class escape literal; JS's u mode rejects the range
        prevWasSet = false;
        continue;
      }
      out += c === '-' ? '-' : classLiteral(c);
      prevWasSet = false;
    }
  }

  private nextIsClassSet(): boolean {
    return (
      (this.peek() === '\\' && /[dDwWsShHvVpP]/.test(this.peek(1))) ||
      (this.peek() === '[' && this.peek(1) === ':')
    );
  }

  /** `[:name:]` or `[:^name:]` inside a class, `[` already read. */
  private posixClass(): string {
    const m = /^:(\^?)([a-z]+):\]/.exec(this.src.slice(this.i));
    if (!m) return '\\[';
    const body =
      (this.ucp ? UCP_POSIX_CLASSES[m[2] ?? ''] : undefined) ?? POSIX_CLASSES[m[2] ?? ''];
    if (body === undefined) invalid(`unknown POSIX class name ${m[2] ?? ''}`);
    if (m[1] === '^') invalid('negated POSIX classes are not supported');
    this.i += m[0].length;
    return body;
  }
}

/**
 * Translates a PCRE pattern to JavaScript source, honouring the given flags; `ignoreCase` is
 * the `i` flag the JS RegExp needs (a leading `(?i)` may have turned it on).
 */
export function translatePcre(
  pattern: string,
  flags: RegexFlags,
): { source: string; ignoreCase: boolean } {
  return new Translator(pattern, flags).run();
}
