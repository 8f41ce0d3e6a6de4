// Extended JSON text as mongoexport writes it and mongoimport reads it (Go driver's rules), where
// the bson package's EJSON differs:
// - Reading: a plain JSON number keeps what its text says. `1.0` and `1e3` are doubles, `1` an
//   int32, `4294967296` an int64 (EJSON.parse makes `1.0` an int32). Numbers inside a `$` key's
//   value (`{"$timestamp": {"t": 1, "i": 2}}`, `{"$gt": 5}`) stay plain for EJSON to read.
// - Writing relaxed: a finite double is written with a decimal point or exponent (`1.0`,
//   `1E+21`) so that it reads back as a double; an int64 is a plain number; a date from 1970
//   to 9999 is `{"$date": "<ISO-8601>"}` with milliseconds only when not zero.
// Syntax errors read as Go's encoding/json words them ("invalid character 'x' looking for
// beginning of value"), with the line and column.

import { EJSON } from './bson.js';
import type { Document } from './bson.js';
import { ToolError } from './tool-error.js';

export class JsonSyntaxError extends ToolError {
  constructor(
    message: string,
    /** Offset in the text where the error was found. */
    readonly offset: number,
  ) {
    super(message);
  }
}

const int32Min = -2147483648;
const int32Max = 2147483647;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

function describe(ch: string | undefined): string {
  if (ch === undefined) return 'end of JSON input';
  // Go's quoteChar: strconv.Quote's escapes between single quotes, a quote left bare.
  if (ch === '"') return `character '"'`;
  if (ch === "'") return `character '\\''`;
  return `character '${JSON.stringify(ch).slice(1, -1)}'`;
}

/** Parses JSON text into the tree EJSON.deserialize reads, numbers typed by their text. */
class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  fail(context: string): never {
    const ch = this.text[this.at];
    if (ch === undefined) throw new JsonSyntaxError('unexpected end of JSON input', this.at);
    throw new JsonSyntaxError(`invalid ${describe(ch)} ${context}`, this.at);
  }

  private space(): void {
    const t = this.text;
    while (this.at < t.length) {
      const c = t.charCodeAt(this.at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.at++;
      else break;
    }
  }

  document(): Document {
    this.space();
    if (this.text[this.at] !== '{') this.fail('looking for beginning of object');
    const v = this.value(false) as Document;
    this.space();
    if (this.at < this.text.length) this.fail('after top-level value');
    return v;
  }

  any(): unknown {
    const v = this.value(false);
    this.space();
    if (this.at < this.text.length) this.fail('after top-level value');
    return v;
  }

  private value(plainNumbers: boolean): unknown {
    this.space();
    const c = this.text[this.at];
    switch (c) {
      case '{':
        return this.object(plainNumbers);
      case '[':
        return this.array(plainNumbers);
      case '"':
        return this.string();
      case 't':
        return this.word('true', true);
      case 'f':
        return this.word('false', false);
      case 'n':
        return this.word('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9'))
          return this.number(plainNumbers);
        return this.fail('looking for beginning of value');
    }
  }

  private word(w: string, v: unknown): unknown {
    for (let i = 0; i < w.length; i++) {
      if (this.text[this.at] !== w[i]) this.fail(`in literal ${w} (expecting '${w[i]}')`);
      this.at++;
    }
    return v;
  }

  private object(plainNumbers: boolean): Document {
    this.at++; // {
    const out: Document = {};
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      this.space();
      if (this.text[this.at] !== ':') this.fail('after object key');
      this.at++;
      const v = this.value(plainNumbers || key.startsWith('$'));
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const next = this.text[this.at];
      if (next === ',') {
        this.at++;
        continue;
      }
      if (next === '}') {
        this.at++;
        return out;
      }
      this.fail('after object key:value pair');
    }
  }

  private array(plainNumbers: boolean): unknown[] {
    this.at++; // [
    const out: unknown[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(plainNumbers));
      this.space();
      const next = this.text[this.at];
      if (next === ',') {
        this.at++;
        continue;
      }
      if (next === ']') {
        this.at++;
        return out;
      }
      this.fail('after array element');
    }
  }

  private string(): string {
    const t = this.text;
    const start = ++this.at; // opening quote
    let simple = true;
    for (;;) {
      const c = t.charCodeAt(this.at);
      if (Number.isNaN(c)) this.fail('in string literal');
      if (c === 0x22) break;
      if (c < 0x20) this.fail('in string literal');
      if (c === 0x5c) {
        simple = false;
        const e = t[this.at + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.at + 2, this.at + 6))) {
            this.at += 2;
            this.fail('in \\u hexadecimal character escape');
          }
          this.at += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          this.at++;
          this.fail('in string escape code');
        }
        this.at += 2;
        continue;
      }
      this.at++;
    }
    const raw = t.slice(start, this.at);
    this.at++; // closing quote
    return simple ? raw : (JSON.parse(`"${raw}"`) as string);
  }

  private number(plain: boolean): unknown {
    const t = this.text;
    const start = this.at;
    if (t[this.at] === '-') this.at++;
    if (t[this.at] === '0') this.at++;
    else if (
      t[this.at] !== undefined &&
      (t[this.at] as string) >= '1' &&
      (t[this.at] as string) <= '9'
    )
      while (/[0-9]/.test(t[this.at] ?? '')) this.at++;
    else this.fail('in numeric literal');
    let integer = true;
    if (t[this.at] === '.') {
      integer = false;
      this.at++;
      if (!/[0-9]/.test(t[this.at] ?? '')) this.fail('after decimal point in numeric literal');
      while (/[0-9]/.test(t[this.at] ?? '')) this.at++;
    }
    if (t[this.at] === 'e' || t[this.at] === 'E') {
      integer = false;
      this.at++;
      if (t[this.at] === '+' || t[this.at] === '-') this.at++;
      if (!/[0-9]/.test(t[this.at] ?? '')) this.fail('in exponent of numeric literal');
      while (/[0-9]/.test(t[this.at] ?? '')) this.at++;
    }
    const lexeme = t.slice(start, this.at);
    if (plain) return Number(lexeme);
    if (integer) {
      const n = Number(lexeme);
      if (n >= int32Min && n <= int32Max) return { $numberInt: String(n) };
      const big = BigInt(lexeme);
      if (big >= int64Min && big <= int64Max) return { $numberLong: big.toString() };
    }
    const f = Number(lexeme);
    return { $numberDouble: Object.is(f, -0) ? '-0.0' : String(f) };
  }
}

/** Line (1-based) and column (1-based) of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart + 1 };
}

/** One Extended JSON document (relaxed or canonical) from its text, every value typed. */
export function parseExtendedJsonDocument(text: string): Document {
  const tree = new Parser(text).document();
  return EJSON.deserialize(tree, { relaxed: false }) as Document;
}

/** Any Extended JSON value (a --query, a --sort). */
export function parseExtendedJson(text: string): unknown {
  const tree = new Parser(text).any();
  return EJSON.deserialize(tree as Document, { relaxed: false }) as unknown;
}

/** Go's strconv.FormatFloat(f, 'g' or 'G', -1, 64): shortest digits, %e when exp < -4 or >= 6. */
export function goFloat(f: number, upper: boolean): string {
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}${upper ? 'E' : 'e'}${sign}${digits}`;
  }
  return String(f);
}

function goDate(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function isBsonValue(v: object): v is { _bsontype: string } {
  return typeof (v as { _bsontype?: unknown })._bsontype === 'string';
}

/** Relaxed Extended JSON of a value decoded with the tools' raw options, as the Go driver writes it. */
export function relaxedJson(v: unknown): string {
  if (v === null || typeof v !== 'object')
    return JSON.stringify(EJSON.serialize({ v }, { relaxed: true })['v']);
  if (Array.isArray(v))
    return `[${v.map((x) => relaxedJson(x === undefined ? null : x)).join(',')}]`;
  if (v instanceof Date) {
    const ms = v.getTime();
    const year = v.getUTCFullYear();
    if (!Number.isNaN(ms) && year >= 1970 && year <= 9999)
      return `{"$date":${JSON.stringify(goDate(v))}}`;
    return JSON.stringify(EJSON.serialize({ v }, { relaxed: false })['v']);
  }
  if (isBsonValue(v)) {
    switch (v._bsontype) {
      case 'Double': {
        const f = (v as unknown as { value: number }).value;
        if (!Number.isFinite(f)) break;
        const s = goFloat(f, true);
        return s.includes('E') || s.includes('.') ? s : `${s}.0`;
      }
      case 'Int32':
        return String((v as unknown as { value: number }).value);
      case 'Long':
        return (v as unknown as { toString(): string }).toString();
      default:
        break;
    }
    return JSON.stringify(EJSON.serialize({ v }, { relaxed: true })['v']);
  }
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${JSON.stringify(String(k))}:${relaxedJson(x)}`);
    return `{${parts.join(',')}}`;
  }
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Document))
    if (x !== undefined) parts.push(`${JSON.stringify(k)}:${relaxedJson(x)}`);
  return `{${parts.join(',')}}`;
}

/** Canonical Extended JSON: every value's type spelled out. */
export function canonicalJson(v: unknown): string {
  return EJSON.stringify(v as Document, { relaxed: false });
}
