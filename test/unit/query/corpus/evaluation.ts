// $mod and $regex (with PCRE semantics where they differ from JavaScript's).

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { dbl, dec, long, re } from './values.js';

const MOD_MANUAL = 'MongoDB manual, $mod (5.1+: truncation of fractional arguments, NaN/Infinity)';
const MOD_LEAF = 'mongod src/mongo/db/matcher/expression_leaf.cpp (ModMatchExpression)';
const REGEX_MANUAL = 'MongoDB manual, $regex (products examples)';
const REGEX_UNICODE = 'mongodb/mongo jstests/core/query/regex/regex_unicode.js';
const REGEX_OPTIONS = 'mongodb/mongo jstests/core/query/regex/regex_options.js';
const PCRE =
  'PCRE2 pattern documentation (pcre2pattern): newline LF, dollar, dot, \\s, \\A, \\z, \\Z, \\Q...\\E';

const products = [
  { _id: 100, sku: 'abc123', description: 'Single line description.' },
  { _id: 101, sku: 'abc789', description: 'First line\nSecond line' },
  { _id: 102, sku: 'xyz456', description: 'Many spaces before     line' },
  { _id: 103, sku: 'xyz789', description: 'Multiple\nline description' },
  { _id: 104, sku: 'Abc789', description: 'SKU starts with A' },
];

const words = [
  { _id: 0, text: 'kyle' },
  { _id: 1, text: '박정수' },
  { _id: 2, text: 'suárez' },
];
const digits = [
  { _id: 0, text: '02191996' },
  { _id: 1, text: '༢༣༤༥' },
  { _id: 2, text: '9୩୪୬୯6' },
];

function unicodeCase(pattern: string, docs: typeof words, expected: number[]): MatchCase {
  return {
    name: `$regex ${JSON.stringify(pattern)}`,
    filter: { text: { $regex: pattern } },
    docs,
    expected,
    source: REGEX_UNICODE,
  };
}

export const evaluationCases: MatchCase[] = [
  {
    name: '$mod [4, 0]',
    filter: { qty: { $mod: [4, 0] } },
    docs: [
      { _id: 1, qty: 0 },
      { _id: 2, qty: 5 },
      { _id: 3, qty: 12 },
    ],
    expected: [1, 3],
    source: 'MongoDB manual, $mod',
  },
  {
    name: '$mod truncates the dividend',
    filter: { a: { $mod: [4, 1] } },
    docs: values(
      5,
      5.9,
      -3,
      dec('9.99'),
      dbl(NaN),
      dbl(Infinity),
      '5',
      long('1000000000000000001'),
      dec('NaN'),
    ),
    expected: [0, 1, 3, 7],
    source: MOD_LEAF,
  },
  {
    name: '$mod keeps the sign of the dividend',
    filter: { a: { $mod: [4, -1] } },
    docs: values(-5, 5, -1.5, 3),
    expected: [0, 2],
    source: MOD_LEAF,
  },
  {
    name: '$mod with a negative divisor',
    filter: { a: { $mod: [-4, 1] } },
    docs: values(5, -3, 1),
    expected: [0, 2],
    source: MOD_LEAF,
  },
  {
    name: '$mod truncates a fractional divisor',
    filter: { a: { $mod: [4.5, 0] } },
    docs: values(8, 9, 4),
    expected: [0, 2],
    source: MOD_MANUAL,
  },
  {
    name: '$mod truncates a fractional remainder',
    filter: { a: { $mod: [4, 1.9] } },
    docs: values(5, 6),
    expected: [0],
    source: MOD_MANUAL,
  },
  {
    name: '$mod with divisor -1',
    filter: { a: { $mod: [-1, 0] } },
    docs: values(long('-9223372036854775808'), 7),
    expected: [0, 1],
    source: 'mongod overflow::safeMod (x % -1 is 0)',
  },
  {
    name: '$mod through an array',
    filter: { a: { $mod: [2, 1] } },
    docs: values([2, 3], [2, 4]),
    expected: [0],
    source: MOD_LEAF,
  },
  {
    name: '$regex end anchor',
    filter: { sku: { $regex: re('789$') } },
    docs: products,
    expected: [101, 103, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex case insensitive',
    filter: { sku: { $regex: re('^ABC', 'i') } },
    docs: products,
    expected: [100, 101, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex multiline',
    filter: { description: { $regex: re('^S', 'm') } },
    docs: products,
    expected: [100, 101, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex without multiline',
    filter: { description: { $regex: re('^S') } },
    docs: products,
    expected: [100, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex dot-all',
    filter: { description: { $regex: re('m.*line', 'si') } },
    docs: products,
    expected: [102, 103],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex without dot-all',
    filter: { description: { $regex: re('m.*line', 'i') } },
    docs: products,
    expected: [102],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex extended',
    filter: { sku: { $regex: 'abc #category code\n123 #item number', $options: 'x' } },
    docs: products,
    expected: [100],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex string with $options',
    filter: { sku: { $regex: '^abc', $options: 'i' } },
    docs: products,
    expected: [100, 101, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$options before $regex',
    filter: { sku: { $options: 'i', $regex: '^abc' } },
    docs: products,
    expected: [100, 101, 104],
    source: REGEX_MANUAL,
  },
  {
    name: 'regex value as the field condition',
    filter: { sku: /^abc/i },
    docs: products,
    expected: [100, 101, 104],
    source: REGEX_MANUAL,
  },
  {
    name: '$regex with the u flag',
    filter: { txt: { $regex: '^hello.*', $options: 'u' } },
    docs: [{ _id: 0, txt: 'hello_test' }],
    expected: [0],
    source: REGEX_OPTIONS,
  },
  {
    name: 'regex on an array of strings',
    filter: { a: /^b/ },
    docs: values(['a', 'bc'], ['a'], 'b'),
    expected: [0, 2],
    source: REGEX_MANUAL,
  },
  {
    name: 'regex ignores non-strings',
    filter: { a: /1/ },
    docs: values(1, '1', [1]),
    expected: [1],
    source:
      'mongod expression_leaf.cpp (RegexMatchExpression matches strings, symbols and regexes)',
  },
  {
    name: 'regex matches an equal regex value',
    filter: { a: /x/i },
    docs: values(re('x', 'i'), re('x'), re('x', 'im')),
    expected: [0],
    source: 'mongod expression_leaf.cpp (RegexMatchExpression)',
  },
  unicodeCase('y', words, [0]),
  unicodeCase('e', words, [0, 2]),
  unicodeCase('á', words, [2]),
  unicodeCase('정', words, [1]),
  unicodeCase('(*UTF)e', words, [0, 2]),
  unicodeCase('(*UTF8)정', words, [1]),
  unicodeCase('\\p{Latin}', words, [0, 2]),
  unicodeCase('^\\p{Latin}+$', words, [0, 2]),
  unicodeCase('\\p{Hangul}', words, [1]),
  unicodeCase('^\\p{Hangul}+$', words, [1]),
  unicodeCase('^\\p{L}+$', words, [0, 1, 2]),
  unicodeCase('^\\p{Xan}+$', words, [0, 1, 2]),
  unicodeCase('\\w', words, [0, 2]),
  unicodeCase('^\\w+$', words, [0]),
  unicodeCase('(*UCP)\\w', words, [0, 1, 2]),
  unicodeCase('(*UCP)^\\w+$', words, [0, 1, 2]),
  unicodeCase('[[:alpha:]]', words, [0, 2]),
  unicodeCase('^[[:alpha:]]+$', words, [0]),
  unicodeCase('(*UCP)[[:alpha:]]', words, [0, 1, 2]),
  unicodeCase('(*UCP)^[[:alpha:]]+$', words, [0, 1, 2]),
  unicodeCase('1', digits, [0]),
  unicodeCase('9', digits, [0, 2]),
  unicodeCase('^\\p{N}+$', digits, [0, 1, 2]),
  unicodeCase('\\d', digits, [0, 2]),
  unicodeCase('^\\d+$', digits, [0]),
  unicodeCase('(*UCP)\\d', digits, [0, 1, 2]),
  unicodeCase('(*UCP)^\\d+$', digits, [0, 1, 2]),
  unicodeCase('[[:digit:]]', digits, [0, 2]),
  unicodeCase('^[[:digit:]]+$', digits, [0]),
  unicodeCase('(*UCP)^[[:digit:]]+$', digits, [0, 1, 2]),
  {
    name: 'PCRE $ matches before a final newline',
    filter: { a: { $regex: 'x$' } },
    docs: values('x\n', 'x\n\n', 'x'),
    expected: [0, 2],
    source: PCRE,
  },
  {
    name: 'PCRE \\z is the very end',
    filter: { a: { $regex: 'x\\z' } },
    docs: values('x\n', 'x'),
    expected: [1],
    source: PCRE,
  },
  {
    name: 'PCRE \\Z allows a final newline',
    filter: { a: { $regex: 'x\\Z' } },
    docs: values('x\n', 'x', 'x\ny'),
    expected: [0, 1],
    source: PCRE,
  },
  {
    name: 'PCRE \\A is the start even in multiline',
    filter: { a: { $regex: '\\Ab', $options: 'm' } },
    docs: values('a\nb', 'b'),
    expected: [1],
    source: PCRE,
  },
  {
    name: 'PCRE dot matches CR (newline is LF)',
    filter: { a: { $regex: '^a.b$' } },
    docs: values('a\rb', 'a\nb', 'a\u2028b'),
    expected: [0, 2],
    source: PCRE,
  },
  {
    name: 'PCRE \\s is ASCII whitespace',
    filter: { a: { $regex: '^\\s$' } },
    docs: values(' ', '\t', '\u00a0', '\u2003'),
    expected: [0, 1],
    source: PCRE,
  },
  {
    name: 'PCRE multiline ^ after LF only',
    filter: { a: { $regex: '^b', $options: 'm' } },
    docs: values('a\nb', 'a\rb'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE \\Q...\\E quotes',
    filter: { a: { $regex: '^\\Qa.b*\\E$' } },
    docs: values('a.b*', 'axbb'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE escaped punctuation',
    filter: { a: { $regex: '^\\-\\"\\:$' } },
    docs: values('-":'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE literal braces',
    filter: { a: { $regex: '^a{,2}$' } },
    docs: values('a{,2}', 'aa'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE \\x{...}',
    filter: { a: { $regex: '^\\x{263A}$' } },
    docs: values('\u263a'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE leading (?i)',
    filter: { a: { $regex: '(?i)^abc$' } },
    docs: values('ABC', 'abd'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'PCRE ] first in a class is literal',
    filter: { a: { $regex: '^[]a]+$' } },
    docs: values(']a]', 'b'),
    expected: [0],
    source: PCRE,
  },
  {
    name: 'dot matches a whole code point',
    filter: { a: { $regex: '^.$' } },
    docs: values('\u{1F600}', 'ab'),
    expected: [0],
    source: PCRE,
  },
];
