// The text search library (src/text): the query parser's negation and phrase rules (mongod's
// fts_query_impl_test.cpp cases), tokenization (delimiters, case folding, diacritics, stop
// words, stemming) and the score formula (fts_spec.cpp).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { textLanguage } from '../../../src/text/languages.js';
import type { TextLanguage } from '../../../src/text/languages.js';
import { compileTextSearch, parseTextParams, parseTextQuery } from '../../../src/text/query.js';
import { indexedTerm, scoreDocument, textSpecOf } from '../../../src/text/spec.js';
import { bdoc } from '../../helpers/bson-values.js';
import { indexTokenOptions, tokens } from '../../../src/text/tokenizer.js';
import { foldString } from '../../../src/text/unicode.js';

const english = textLanguage('english') as TextLanguage;
const none = textLanguage('none') as TextLanguage;

function parse(search: string, language: TextLanguage = english) {
  return parseTextQuery(
    { search, language: '', caseSensitive: false, diacriticSensitive: false },
    language,
  );
}

describe('text query parsing (mongod FTSQueryImpl)', () => {
  test('terms are stemmed, lower-cased, without stop words, sorted', () => {
    const q = parse('Running the DOGS');
    assert.deepEqual(q.terms, ['dog', 'run']);
    assert.deepEqual(q.termsForBounds, ['dog', 'run']);
  });
  test('negation lasts until the next whitespace and needs whitespace before the dash', () => {
    assert.deepEqual(parse('-foo-bar', none).negatedTerms, ['bar', 'foo']);
    assert.deepEqual(parse('- foo', none).negatedTerms, []);
    assert.deepEqual(parse('- foo', none).terms, ['foo']);
    assert.deepEqual(parse('a-b', none).terms, ['a', 'b']);
    assert.deepEqual(parse('a -b', none).negatedTerms, ['b']);
  });
  test('phrases, negated phrases, and words inside them', () => {
    const q = parse('-"foo bar"-"baz quux" "hello world" x', none);
    assert.deepEqual(q.negatedPhrases, ['foo bar', 'baz quux']);
    assert.deepEqual(q.phrases, ['hello world']);
    assert.deepEqual(q.terms, ['hello', 'world', 'x']);
    assert.deepEqual(q.negatedTerms, []);
  });
  test('$text operand checks', () => {
    assert.throws(() => parseTextParams('x'), { code: 2 });
    assert.throws(() => parseTextParams({}), { code: 4 });
    assert.throws(() => parseTextParams({ $search: 1 }), { code: 14 });
    assert.throws(() => parseTextParams({ $search: 'x', $diacriticSensitive: 'no' }), { code: 14 });
    assert.throws(() => parseTextParams({ $search: 'x', y: 1 }), { code: 2 });
    assert.deepEqual(parseTextParams({ $search: 'x', $language: 'fr' }), {
      search: 'x',
      language: 'fr',
      caseSensitive: false,
      diacriticSensitive: false,
    });
  });
});

describe('tokenization', () => {
  test('delimiters, the English apostrophe, case folding and diacritics', () => {
    assert.deepEqual(
      [...tokens("O'Clock STOP, café-crème!", english, indexTokenOptions)],
      ["o'clock", 'stop', 'cafe', 'creme'],
    );
    assert.deepEqual(
      [...tokens("don't", textLanguage('french') as TextLanguage, indexTokenOptions)],
      ['don'],
    );
    // English stop words include "don't"; the apostrophe keeps it one word.
    assert.deepEqual([...tokens("don't go", english, indexTokenOptions)], ['go']);
    assert.equal(foldString('İI', { foldCase: true, stripDiacritics: false, turkish: true }), 'iı');
    assert.equal(
      foldString('ÉÇÃ', { foldCase: true, stripDiacritics: true, turkish: false }),
      'eca',
    );
  });
  test('languages by name and code, any case', () => {
    assert.equal(textLanguage('ES')?.name, 'spanish');
    assert.equal(textLanguage('Portuguese')?.name, 'portuguese');
    assert.equal(textLanguage('klingon'), undefined);
  });
  test('long terms are cut to 224 bytes and suffixed with their MD5', () => {
    const long = 'a'.repeat(300);
    const t = indexedTerm(long);
    assert.equal(t.length, 224 + 32);
    assert.equal(t.slice(0, 224), 'a'.repeat(224));
    assert.equal(indexedTerm('short'), 'short');
  });
});

describe('scores (mongod FTSSpec::_scoreStringV2)', () => {
  const spec = textSpecOf(
    bdoc({
      key: { _fts: 'text', _ftsx: 1 },
      weights: { a: 1, b: 5 },
      default_language: 'english',
      language_override: 'language',
      textIndexVersion: 3,
    }),
  );
  test('frequency, length coefficient, whole-string bonus and weights', () => {
    // "cake": n = 1 of N = 2 terms ("baking a cake": "a" is a stop word): 1 × 0.75.
    assert.equal(scoreDocument(spec, { a: 'Baking a cake' }).get('cake'), 0.75);
    // The whole string is the term: × 1.1.
    assert.equal(scoreDocument(spec, { a: 'cake' }).get('cake'), 1.1);
    // Three times among three: (1 + 1/2 + 1/4) × 1.
    assert.equal(scoreDocument(spec, { a: 'cake cake cake' }).get('cake'), 1.75);
    // Weight 5, and the strings add up.
    const s = scoreDocument(spec, { a: 'cake pie', b: ['cake'] });
    assert.equal(s.get('cake'), 0.75 + 5 * 1.1);
  });
  test('the matcher checks negations and phrases; terms only when sensitive', () => {
    const search = (s: string, caseSensitive = false) =>
      compileTextSearch(spec, {
        search: s,
        language: '',
        caseSensitive,
        diacriticSensitive: false,
      });
    assert.equal(search('cake -pie').matches({ a: 'cake pie' }), false);
    assert.equal(search('"cake pie"').matches({ a: 'Cake Pie!' }), true);
    assert.equal(search('"cake pie"', true).matches({ a: 'Cake Pie!' }), false);
    assert.equal(search('Cake', true).matches({ a: 'cake' }), false);
    assert.equal(search('Cake', true).matches({ a: 'Cake' }), true);
    assert.equal(search('tart').matches({ a: 'cake' }, true), false);
  });
});
