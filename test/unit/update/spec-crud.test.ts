// Replays the update operations of the driver specification's CRUD tests
// (../shared/specs/unified/crud) against a tiny in-memory collection built from the update
// layer and the test matcher, and checks the expected counts and the collection's final
// contents. The expectations were recorded against real servers.
//
// Only what the update layer decides is replayed: pipeline updates (not implemented here
// yet), client-side errors, fail points and other commands are skipped, and so are the
// returned documents of findOneAnd* (projection belongs to the query layer).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EJSON, ObjectId, Timestamp } from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import { isPlainDocument } from '../../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { compileUpdate } from '../../../src/update/index.js';
import { fakeCompileFilter } from './fake-matcher.js';
import { specsDir, specsMissing } from '../../helpers/specs.js';

const specDir = specsDir('unified/crud');

const files = [
  'updateOne.json',
  'updateMany.json',
  'replaceOne.json',
  'findOneAndUpdate.json',
  'findOneAndReplace.json',
  'findOneAndReplace-upsert.json',
  'updateOne-arrayFilters.json',
  'updateMany-arrayFilters.json',
  'findOneAndUpdate-arrayFilters.json',
  'updateOne-dots_and_dollars.json',
  'updateMany-dots_and_dollars.json',
  'replaceOne-dots_and_dollars.json',
  'findOneAndReplace-dots_and_dollars.json',
  'findOneAndUpdate-dots_and_dollars.json',
];

const supported = new Set([
  'updateOne',
  'updateMany',
  'replaceOne',
  'findOneAndUpdate',
  'findOneAndReplace',
]);
const serverVersion = [7, 0, 0];

function versionAtLeast(v: string | undefined, than: number[]): boolean {
  if (v === undefined) return true;
  const parts = v.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const a = parts[i] ?? 0;
    const b = than[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

interface Requirement {
  minServerVersion?: string;
  maxServerVersion?: string;
  serverless?: string;
}

function runsOn7(reqs: Requirement[] | undefined): boolean {
  if (reqs === undefined || reqs.length === 0) return true;
  return reqs.some(
    (r) =>
      versionAtLeast('7.0.0', (r.minServerVersion ?? '0').split('.').map(Number)) &&
      versionAtLeast(r.maxServerVersion ?? '99', serverVersion) &&
      r.serverless !== 'require',
  );
}

interface Operation {
  name: string;
  object: string;
  arguments?: BsonDocument;
  expectResult?: BsonValue;
  expectError?: BsonDocument;
}

function sortDocs(docs: BsonDocument[], sort: BsonDocument | undefined): BsonDocument[] {
  if (sort === undefined) return docs;
  const keys = Object.keys(sort);
  return [...docs].sort((a, b) => {
    for (const k of keys) {
      const c = compareBson(a[k] ?? null, b[k] ?? null) * (Number(String(sort[k])) < 0 ? -1 : 1);
      if (c !== 0) return c;
    }
    return 0;
  });
}

function num(v: BsonValue | undefined): number | undefined {
  return v === undefined ? undefined : Number(String(v));
}

/** Apply one operation to the collection; returns matched/modified/upserted counts. */
function apply(
  collection: BsonDocument[],
  op: Operation,
): { matched: number; modified: number; upserted: number } {
  const args = op.arguments ?? {};
  const filter = (args['filter'] ?? {}) as BsonDocument;
  const spec = (
    op.name === 'replaceOne' || op.name === 'findOneAndReplace'
      ? args['replacement']
      : args['update']
  ) as BsonDocument;
  const arrayFilters = args['arrayFilters'] as BsonDocument[] | undefined;
  const multi = op.name === 'updateMany';
  const compiled = compileUpdate(spec, {
    compileFilter: fakeCompileFilter,
    ...(arrayFilters ? { arrayFilters } : {}),
    multi,
  });
  const matcher = fakeCompileFilter(filter);
  const candidates = sortDocs(
    collection.filter((d) => matcher.matches(d)),
    args['sort'] as BsonDocument | undefined,
  );
  const targets = multi ? candidates : candidates.slice(0, 1);
  const ctx = {
    isInsert: false,
    now: new Date(0),
    nextTimestamp: () => new Timestamp({ t: 1, i: 1 }),
  };
  let modified = 0;
  const results = targets.map((doc) => compiled.apply(doc, ctx));
  // All documents are validated before any is written, as one statement would fail as a whole.
  targets.forEach((doc, k) => {
    const r = results[k];
    if (r === undefined) return;
    if (r.modified) modified++;
    collection[collection.indexOf(doc)] = r.doc;
  });
  if (targets.length === 0 && args['upsert'] === true) {
    collection.push(
      compiled.upsert(filter, { now: new Date(0), generateId: () => new ObjectId() }).doc,
    );
    return { matched: 0, modified: 0, upserted: 1 };
  }
  return { matched: targets.length, modified, upserted: 0 };
}

/** Unified-format equality for stored documents: numbers compare by value. */
function sameDocs(actual: BsonDocument[], expected: BsonDocument[]): boolean {
  if (actual.length !== expected.length) return false;
  const byId = (a: BsonDocument, b: BsonDocument): number =>
    compareBson(a['_id'] ?? null, b['_id'] ?? null);
  const x = [...actual].sort(byId);
  const y = [...expected].sort(byId);
  return x.every((d, k) => compareBson(d, y[k] as BsonDocument) === 0);
}

if (specDir === undefined) test(specsMissing('unified/crud'), { skip: true }, () => {});
else runSpecFiles(specDir);

function runSpecFiles(specDir: string): void {
  for (const file of files) {
    const spec = EJSON.parse(readFileSync(path.join(specDir, file), 'utf8'), {
      relaxed: false,
    }) as {
      runOnRequirements?: Requirement[];
      initialData?: Array<{ documents: BsonDocument[] }>;
      tests: Array<{
        description: string;
        runOnRequirements?: Requirement[];
        operations: Operation[];
        outcome?: Array<{ documents: BsonDocument[] }>;
        skipReason?: string;
      }>;
    };
    describe(`spec ${file}`, () => {
      for (const t of spec.tests) {
        const usable =
          runsOn7(spec.runOnRequirements) &&
          runsOn7(t.runOnRequirements) &&
          t.skipReason === undefined &&
          t.operations.every((op) => supported.has(op.name)) &&
          t.operations.every((op) => {
            const u = op.arguments?.['update'];
            return (
              !Array.isArray(u) &&
              op.expectError?.['isClientError'] !== true &&
              op.arguments?.['let'] === undefined &&
              op.arguments?.['collation'] === undefined
            );
          });
        test(
          t.description,
          {
            skip: usable
              ? false
              : 'needs more than the update layer (pipeline, client error, other commands)',
          },
          () => {
            const collection = (spec.initialData?.[0]?.documents ?? []).map((d) => d);
            for (const op of t.operations) {
              if (op.expectError !== undefined) {
                assert.throws(() => apply(collection, op));
                continue;
              }
              const counts = apply(collection, op);
              const r = op.expectResult;
              if (
                (op.name === 'updateOne' || op.name === 'updateMany' || op.name === 'replaceOne') &&
                isPlainDocument(r)
              ) {
                if (r['matchedCount'] !== undefined)
                  assert.equal(counts.matched, num(r['matchedCount']), 'matchedCount');
                if (r['modifiedCount'] !== undefined)
                  assert.equal(counts.modified, num(r['modifiedCount']), 'modifiedCount');
                if (r['upsertedCount'] !== undefined)
                  assert.equal(counts.upserted, num(r['upsertedCount']), 'upsertedCount');
              }
            }
            const outcome = t.outcome?.[0]?.documents;
            if (outcome !== undefined) {
              assert.ok(
                sameDocs(collection, outcome),
                `outcome\n actual:   ${EJSON.stringify(collection)}\n expected: ${EJSON.stringify(outcome)}`,
              );
            }
          },
        );
      }
    });
  }
}
