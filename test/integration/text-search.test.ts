// Text indexes and $text through the driver, built from mongod's documentation examples
// (docs/manual/reference/operator/query/text, core/indexes/index-types/index-text) and jstests
// (jstests/core/fts_*.js): results, scores, explain, errors, and index upkeep through every write
// path. A property test checks that $text answers what a scan of every document would.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Collection, Db, Document, Filter } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

type TextQuery = {
  $search: string;
  $language?: string;
  $caseSensitive?: boolean;
  $diacriticSensitive?: boolean;
};
/** A filter the driver's types refuse, sent on purpose to see the server's error. */
const malformed = (f: Document): Filter<TestDoc> => f as Filter<TestDoc>;
import { compileTextSearch } from '../../src/text/query.js';
import { scoreDocument, textSpecOf } from '../../src/text/spec.js';

const articles: Document[] = [
  { _id: 1, subject: 'coffee', author: 'xyz', views: 50 },
  { _id: 2, subject: 'Coffee Shopping', author: 'efg', views: 5 },
  { _id: 3, subject: 'Baking a cake', author: 'abc', views: 90 },
  { _id: 4, subject: 'baking', author: 'xyz', views: 100 },
  { _id: 5, subject: 'Café Con Leche', author: 'abc', views: 200 },
  { _id: 6, subject: 'Сырники', author: 'jkl', views: 80 },
  { _id: 7, subject: 'coffee and cream', author: 'efg', views: 10 },
  { _id: 8, subject: 'Cafe con Leche', author: 'xyz', views: 10 },
];

const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);
const sortedIds = (docs: Document[]): unknown[] => ids(docs).sort((a, b) => Number(a) - Number(b));

describe('text indexes and $text', () => {
  let t: TestServer;
  let db: Db;

  before(async () => {
    t = await startTestServer();
    db = t.client.db('text_search');
  });
  after(async () => {
    await t.stop();
  });

  async function articlesCollection(name = 'articles'): Promise<Collection<TestDoc>> {
    const c = await freshCollection(db, name, articles);
    await c.createIndex({ subject: 'text' });
    return c;
  }

  test('listIndexes shows the normalised spec (textIndexVersion 3)', async () => {
    const c = await articlesCollection();
    const spec = (await c.listIndexes().toArray()).find((i) => i['name'] === 'subject_text');
    assert.deepEqual(spec, {
      v: 2,
      key: { _fts: 'text', _ftsx: 1 },
      name: 'subject_text',
      weights: { subject: 1 },
      default_language: 'english',
      language_override: 'language',
      textIndexVersion: 3,
    });
  });

  test('the documentation examples: terms, phrases, negation, languages, sensitivity', async () => {
    const c = await articlesCollection();
    const search = async (q: TextQuery): Promise<unknown[]> =>
      sortedIds(await c.find({ $text: q }).toArray());
    assert.deepEqual(await search({ $search: 'coffee' }), [1, 2, 7]);
    assert.deepEqual(await search({ $search: 'bake coffee cake' }), [1, 2, 3, 4, 7]);
    assert.deepEqual(await search({ $search: '"coffee shop"' }), [2]);
    assert.deepEqual(await search({ $search: 'coffee -shop' }), [1, 7]);
    assert.deepEqual(await search({ $search: 'leche', $language: 'es' }), [5, 8]);
    // Indexed in English (the index default), so an English search finds it, a Russian one
    // (which stems it) does not.
    assert.deepEqual(await search({ $search: 'сырники' }), [6]);
    assert.deepEqual(await search({ $search: 'сырники', $language: 'russian' }), []);
    assert.deepEqual(await search({ $search: 'Coffee', $caseSensitive: true }), [2]);
    assert.deepEqual(await search({ $search: '"Café Con"', $caseSensitive: true }), [5]);
    assert.deepEqual(await search({ $search: 'Café -Leche', $caseSensitive: true }), []);
    assert.deepEqual(await search({ $search: 'CAFÉ', $diacriticSensitive: true }), [5]);
    assert.deepEqual(await search({ $search: 'leches -cafés', $diacriticSensitive: true }), [8]);
    // Stop words alone match nothing; "a" and "the" are English stop words.
    assert.deepEqual(await search({ $search: 'a the' }), []);
  });

  test('scores rank as mongod ranks the documentation example', async () => {
    const c = await articlesCollection();
    const docs = await c
      .find(
        { $text: { $search: 'bake coffee cake' } },
        { projection: { score: { $meta: 'textScore' } } },
      )
      .sort({ score: { $meta: 'textScore' } })
      .toArray();
    // mongod: "Baking a cake" 1.5, then "baking" and "coffee" 1, then the two-word subjects 0.75.
    assert.deepEqual(docs.map((d) => [d['_id'], d['score']]).slice(0, 1), [[3, 1.5]]);
    assert.deepEqual(sortedIds(docs.slice(1, 3)), [1, 4]);
    assert.deepEqual(
      docs.slice(1).map((d) => d['score']),
      [1, 1, 0.75, 0.75],
    );
    assert.deepEqual(sortedIds(docs.slice(3)), [2, 7]);
  });

  test('weights, compound prefix and suffix fields, and the wildcard', async () => {
    const blog = await freshCollection(db, 'blog', [
      {
        _id: 1,
        content: 'This morning I had a cup of coffee.',
        about: 'beverage',
        keywords: ['coffee'],
      },
      {
        _id: 2,
        content: 'Who likes chocolate ice cream for dessert?',
        about: 'food',
        keywords: ['poets', 'day'],
      },
      {
        _id: 3,
        content: 'My favorite flavors are strawberry and coffee',
        about: 'ice cream',
        keywords: ['food', 'dessert'],
      },
    ]);
    await blog.createIndex(
      { content: 'text', keywords: 'text', about: 'text' },
      { weights: { content: 10, keywords: 5 }, name: 'TextIndex' },
    );
    const spec = (await blog.listIndexes().toArray()).find((i) => i['name'] === 'TextIndex');
    assert.deepEqual(spec?.['weights'], { about: 1, content: 10, keywords: 5 });
    const scored = await blog
      .find({ $text: { $search: 'coffee' } }, { projection: { score: { $meta: 'textScore' } } })
      .sort({ score: { $meta: 'textScore' } })
      .toArray();
    // The keyword match adds 5 × 1.1 (the whole keyword is the term) to _id 1.
    assert.deepEqual(ids(scored), [1, 3]);
    assert.ok((scored[0]?.['score'] as number) > (scored[1]?.['score'] as number));

    const inventory = await freshCollection(db, 'inventory_text', [
      { _id: 1, dept: 'tech', description: 'lime green computer' },
      { _id: 2, dept: 'tech', description: 'wireless red mouse' },
      { _id: 3, dept: 'kitchen', description: 'green placemat' },
      { _id: 4, dept: 'kitchen', description: 'red peeler' },
      { _id: 5, dept: 'food', description: 'green apple' },
      { _id: 6, dept: 'food', description: 'red potato' },
    ]);
    await inventory.createIndex({ dept: 1, description: 'text' });
    assert.deepEqual(
      sortedIds(await inventory.find({ dept: 'kitchen', $text: { $search: 'green' } }).toArray()),
      [3],
    );
    const plan = (await inventory
      .find({ dept: 'kitchen', $text: { $search: 'green' } })
      .explain()) as Document;
    assert.equal(plan['queryPlanner']['winningPlan']['stage'], 'TEXT_MATCH');
    assert.deepEqual(plan['queryPlanner']['winningPlan']['indexPrefix'], { dept: 'kitchen' });
    await expectServerCode(inventory.find({ $text: { $search: 'green' } }).toArray(), 291);

    const suffix = await freshCollection(db, 'suffix_text', [
      { _id: 1, a: 'hello', b: 1 },
      { _id: 2, a: 'world', b: 2 },
      { _id: 3, a: 'hello world', b: 3 },
    ]);
    await suffix.createIndex({ a: 'text', b: 1 });
    assert.deepEqual(
      sortedIds(await suffix.find({ $text: { $search: 'hello' }, b: 1 }).toArray()),
      [1],
    );

    const all = await freshCollection(db, 'wildcard_text', [
      { _id: 1, title: 'apple pie', nested: { note: 'with cinnamon' } },
      { _id: 2, title: 'cherry tart', tags: ['apple', 'fruit'] },
      { _id: 3, title: 'plain bread', n: 5 },
    ]);
    await all.createIndex({ '$**': 'text' });
    assert.deepEqual(sortedIds(await all.find({ $text: { $search: 'apple' } }).toArray()), [1, 2]);
    assert.deepEqual(sortedIds(await all.find({ $text: { $search: 'cinnamon' } }).toArray()), [1]);
  });

  test('default_language, language_override and per-document languages', async () => {
    const quotes = await freshCollection(db, 'quotes', [
      { _id: 1, language: 'portuguese', original: 'A sorte protege os audazes.' },
      { _id: 2, language: 'spanish', original: 'Nada hay más surrealista que la realidad.' },
      { _id: 3, language: 'english', original: 'is this a dagger which I see before me.' },
      { _id: 4, idioma: 'spanish', original: 'Hay que ser fuerte' },
    ]);
    await quotes.createIndex({ original: 'text' }, { default_language: 'none' });
    // Document 2 is indexed in Spanish (stemmed): the search must stem the same way.
    assert.deepEqual(
      sortedIds(await quotes.find({ $text: { $search: 'realidad' } }).toArray()),
      [],
    );
    const es = { $search: 'realidad', $language: 'es' };
    assert.deepEqual(sortedIds(await quotes.find({ $text: es }).toArray()), [2]);
    assert.deepEqual(sortedIds(await quotes.find({ $text: { $search: 'fuerte' } }).toArray()), [4]);
    // Document 3 overrides the language with English, where "is" is a stop word: not indexed.
    assert.deepEqual(sortedIds(await quotes.find({ $text: { $search: 'is' } }).toArray()), []);
    const other = await freshCollection(db, 'quotes_idioma', [
      { _id: 1, idioma: 'spanish', original: 'Hay que ser fuertes' },
      { _id: 2, idioma: 'english', original: 'the strong survive' },
    ]);
    await other.createIndex({ original: 'text' }, { language_override: 'idioma' });
    const spec = (await other.listIndexes().toArray()).find((i) => i['name'] === 'original_text');
    assert.equal(spec?.['language_override'], 'idioma');
    assert.deepEqual(
      sortedIds(await other.find({ $text: { $search: 'fuerte', $language: 'spanish' } }).toArray()),
      [1],
    );
    await expectServerCode(other.insertOne({ _id: 3, idioma: 5, original: 'x' }), 17261);
    await expectServerCode(other.insertOne({ _id: 4, idioma: 'klingon', original: 'x' }), 17262);
    assert.equal(await other.countDocuments(), 2);
  });

  test('explain shows TEXT_MATCH over TEXT_OR (score wanted) or FETCH ← OR', async () => {
    const c = await articlesCollection();
    const withScore = (await c
      .find(
        { $text: { $search: '"a" -b -"c" coffee' } },
        { projection: { s: { $meta: 'textScore' } } },
      )
      .explain('executionStats')) as Document;
    const plan = withScore['queryPlanner']['winningPlan'];
    assert.equal(plan['stage'], 'PROJECTION_DEFAULT');
    const match = plan['inputStage'];
    assert.equal(match['stage'], 'TEXT_MATCH');
    assert.equal(match['textIndexVersion'], 3);
    assert.deepEqual(match['parsedTextQuery'], {
      terms: ['coffe'],
      negatedTerms: ['b'],
      phrases: ['a'],
      negatedPhrases: ['c'],
    });
    assert.equal(match['inputStage']['stage'], 'TEXT_OR');
    assert.equal(match['inputStage']['inputStage']['stage'], 'IXSCAN');
    const noScore = (await c.find({ $text: { $search: 'coffee cake' } }).explain()) as Document;
    const m = noScore['queryPlanner']['winningPlan'];
    assert.equal(m['stage'], 'TEXT_MATCH');
    assert.equal(m['inputStage']['stage'], 'FETCH');
    assert.equal(m['inputStage']['inputStage']['stage'], 'OR');
    assert.equal(m['inputStage']['inputStage']['inputStages'].length, 2);
  });

  test('aggregation: $text in the first $match, $meta in $project, $addFields and $sort', async () => {
    const c = await articlesCollection();
    const out = await c
      .aggregate([
        { $match: { $text: { $search: 'cake coffee' } } },
        { $addFields: { score: { $meta: 'textScore' } } },
        { $sort: { score: { $meta: 'textScore' }, _id: 1 } },
        { $project: { _id: 1, score: 1, again: { $meta: 'textScore' } } },
      ])
      .toArray();
    assert.deepEqual(
      out.map((d) => [d['_id'], d['score'], d['again']]),
      [
        [1, 1, 1],
        [2, 0.75, 0.75],
        [3, 0.75, 0.75],
        [7, 0.75, 0.75],
      ],
    );
    const grouped = await c
      .aggregate([
        { $match: { $text: { $search: 'coffee' } } },
        { $group: { _id: null, total: { $sum: { $meta: 'textScore' } } } },
      ])
      .toArray();
    assert.equal(grouped[0]?.['total'], 2.5);
    await expectServerCode(
      c
        .aggregate([{ $match: { views: { $gt: 1 } } }, { $match: { $text: { $search: 'x' } } }])
        .toArray(),
      17313,
    );
    await expectServerCode(
      c.aggregate([{ $sort: { a: 1 } }, { $match: { $text: { $search: 'x' } } }]).toArray(),
      17313,
    );
  });

  test('bad requests get mongod codes and change nothing', async () => {
    const c = await articlesCollection();
    await expectServerCode(
      db
        .collection('no_such')
        .find({ $text: { $search: 'x' } })
        .toArray(),
      27,
    );
    const plain = await freshCollection(db, 'plain', [{ a: 'coffee' }]);
    const e = await expectServerCode(plain.find({ $text: { $search: 'x' } }).toArray(), 27);
    assert.match(e.message, /text index required for \$text query/);
    await expectServerCode(c.find(malformed({ $text: 'coffee' })).toArray(), 2);
    await expectServerCode(c.find(malformed({ $text: {} })).toArray(), 4);
    await expectServerCode(c.find(malformed({ $text: { $search: 1 } })).toArray(), 14);
    await expectServerCode(
      c.find(malformed({ $text: { $search: 'x', $caseSensitive: 1 } })).toArray(),
      14,
    );
    await expectServerCode(c.find(malformed({ $text: { $search: 'x', extra: 1 } })).toArray(), 2);
    await expectServerCode(
      c.find(malformed({ $text: { $search: 'x', $language: 'klingon' } })).toArray(),
      2,
    );
    await expectServerCode(c.find({ a: { $elemMatch: { $text: { $search: 'x' } } } }).toArray(), 2);
    await expectServerCode(
      c.find({ $and: [{ $text: { $search: 'x' } }, { $text: { $search: 'y' } }] }).toArray(),
      2,
    );
    await expectServerCode(c.find({ $nor: [{ $text: { $search: 'x' } }] }).toArray(), 2);
    await expectServerCode(c.find({ $or: [{ $text: { $search: 'x' } }, { a: 1 }] }).toArray(), 291);
    await expectServerCode(
      c
        .find({ $text: { $search: 'x' } })
        .hint({ _id: 1 })
        .toArray(),
      2,
    );
    await expectServerCode(
      c
        .find({ $text: { $search: 'x' } })
        .sort({ $natural: 1 })
        .toArray(),
      2,
    );
    const noText = await c
      .find({}, { projection: { s: { $meta: 'textScore' } } })
      .toArray()
      .catch((err: unknown) => err);
    assert.equal((noText as { code?: number }).code, 40218);
    await expectServerCode(
      c
        .find({})
        .sort({ s: { $meta: 'textScore' } })
        .toArray(),
      40218,
    );
    await expectServerCode(c.find({}, { projection: { s: { $meta: 'nope' } } }).toArray(), 17308);

    const idx = db.collection('text_idx_errors');
    await idx.drop().catch(() => undefined);
    const create = (spec: Document): Promise<Document> =>
      db.command({ createIndexes: 'text_idx_errors', indexes: [spec] });
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', weights: { a: 0 } }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', weights: { a: 100000 } }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', weights: { a: 'x' } }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', weights: 5 }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', weights: { $a: 1 } }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', default_language: 'xx' }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', default_language: 1 }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', language_override: '$x' }), 67);
    await expectServerCode(create({ key: { a: 'text' }, name: 'w', textIndexVersion: 4 }), 67);
    await expectServerCode(create({ key: { a: 'text', b: 'x' }, name: 'w' }), 67);
    await expectServerCode(create({ key: { a: 'text', b: 1, c: 'text' }, name: 'w' }), 67);
    await expectServerCode(create({ key: { _fts: 1, a: 'text' }, name: 'w' }), 67);
    await expectServerCode(create({ key: { a: 'text', b: '2dsphere' }, name: 'w' }), 67);
    await create({ key: { a: 'text' }, name: 'a_text' });
    // The same text index again is no error; another one is.
    const again = await create({ key: { a: 'text' }, name: 'a_text' });
    assert.equal(again['note'], 'all indexes already exist');
    await expectServerCode(create({ key: { b: 'text' }, name: 'b_text' }), 85);
    const e67 = await expectServerCode(create({ key: { x: 1, b: 'text' }, name: 'xb' }), 67);
    assert.match(
      e67.message,
      /only one text index per collection allowed, found existing text index "a_text"/,
    );

    const prefixed = await freshCollection(db, 'prefixed', []);
    await prefixed.createIndex({ a: 1, t: 'text' });
    await expectServerCode(prefixed.insertOne({ a: [1, 2], t: 'x' }), 16675);
    assert.equal(await prefixed.countDocuments(), 0);
    assert.deepEqual(await c.find({ $text: { $search: 'coffee' } }).count(), 3);
  });

  test('every write path keeps the index: update, replace, findAndModify, delete, bulk, $merge', async () => {
    const c = await articlesCollection('upkeep');
    const find = async (s: string): Promise<unknown[]> =>
      sortedIds(await c.find({ $text: { $search: s } }).toArray());
    await c.updateOne({ _id: 1 }, { $set: { subject: 'tea' } });
    assert.deepEqual(await find('coffee'), [2, 7]);
    assert.deepEqual(await find('tea'), [1]);
    await c.replaceOne({ _id: 2 }, { subject: 'green tea', views: 1 });
    assert.deepEqual(await find('tea'), [1, 2]);
    await c.findOneAndUpdate({ _id: 7 }, { $set: { subject: 'tea and cream' } });
    assert.deepEqual(await find('coffee'), []);
    await c.deleteOne({ _id: 1 });
    assert.deepEqual(await find('tea'), [2, 7]);
    await c.bulkWrite([
      { insertOne: { document: { _id: 20, subject: 'coffee beans' } } },
      { updateMany: { filter: { subject: /tea/ }, update: { $set: { subject: 'water' } } } },
      { deleteOne: { filter: { _id: 3 } } },
    ]);
    assert.deepEqual(await find('tea'), []);
    assert.deepEqual(await find('water'), [2, 7]);
    assert.deepEqual(await find('coffee'), [20]);
    assert.deepEqual(await find('cake'), []);
    await db
      .collection<TestDoc>('upkeep_source')
      .insertMany([{ _id: 30, subject: 'coffee machine' }]);
    await db
      .collection('upkeep_source')
      .aggregate([{ $merge: { into: 'upkeep' } }])
      .toArray();
    assert.deepEqual(await find('coffee'), [20, 30]);
    await c.updateMany({ $text: { $search: 'coffee' } }, { $set: { hot: true } });
    assert.equal(await c.countDocuments({ hot: true }), 2);
    await c.deleteMany({ $text: { $search: 'water' } });
    assert.deepEqual(await find('water'), []);
  });

  test('property: $text answers what a scan of every document answers', async () => {
    const words = [
      'apple',
      'apples',
      'banana',
      'cherry',
      'the',
      'and',
      'Café',
      'cafe',
      'run',
      'running',
    ];
    const text = fc.array(fc.constantFrom(...words), { maxLength: 6 }).map((w) => w.join(' '));
    const docArb = fc.record({ a: text, b: fc.option(text, { nil: undefined }) });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), doc: docArb }),
      fc.record({ kind: fc.constant('update' as const), at: fc.nat(20), doc: docArb }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(20) }),
    );
    const query = fc.record({
      terms: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
      negate: fc.option(fc.constantFrom(...words), { nil: undefined }),
      phrase: fc.option(fc.constantFrom('apple', 'the cafe', 'banana cherry'), { nil: undefined }),
      caseSensitive: fc.boolean(),
    });
    const c = await freshCollection(db, 'text_property', []);
    await c.createIndex({ a: 'text', b: 'text' }, { weights: { a: 3 } });
    const spec = textSpecOf(
      (await c.listIndexes().toArray()).find((i) => i['name'] !== '_id_') as Document,
    );
    let nextId = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), query, async (ops, q) => {
        for (const o of ops) {
          if (o.kind === 'insert') await c.insertOne({ _id: nextId++, ...clean(o.doc) });
          else if (o.kind === 'update')
            await c.replaceOne({ _id: o.at % Math.max(nextId, 1) }, clean(o.doc));
          else await c.deleteOne({ _id: o.at % Math.max(nextId, 1) });
        }
        const search = [
          ...q.terms,
          ...(q.negate === undefined ? [] : [`-${q.negate}`]),
          ...(q.phrase === undefined ? [] : [`"${q.phrase}"`]),
        ].join(' ');
        const params = { $search: search, $caseSensitive: q.caseSensitive };
        const got = await c
          .find({ $text: params }, { projection: { s: { $meta: 'textScore' } } })
          .toArray();
        const compiled = compileTextSearch(spec, {
          search,
          language: '',
          caseSensitive: q.caseSensitive,
          diacriticSensitive: false,
        });
        const all = await c.find({}).toArray();
        const expected = all.filter((d) => compiled.matches(d as never, true));
        assert.deepEqual(sortedIds(got), sortedIds(expected), search);
        for (const d of got) {
          const terms = scoreDocument(spec, d as never);
          let score = 0;
          for (const term of compiled.query.termsForBounds) score += terms.get(term) ?? 0;
          assert.ok(Math.abs((d['s'] as number) - score) < 1e-9, `score of ${String(d['_id'])}`);
        }
      }),
      { numRuns: 40 },
    );
  });
});

function clean(doc: { a: string; b?: string | undefined }): Document {
  return doc.b === undefined ? { a: doc.a } : { a: doc.a, b: doc.b };
}
