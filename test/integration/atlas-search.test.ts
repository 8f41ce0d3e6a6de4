// Atlas Search through the driver's helpers, answered as a community mongod without mongot
// answers them, by the version the server reports: 8.0 SearchNotEnabled (31082), 7.0
// CommandNotSupported (115) / 6047401. Apps and driver suites probe for exactly these codes.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const indexCommandsMessage8 =
  'Using Atlas Search Database Commands and the $listSearchIndexes aggregation stage requires ' +
  'additional configuration. Please connect to Atlas or an AtlasCLI local deployment to enable. ' +
  'For more information on how to connect, see https://dochub.mongodb.org/core/atlas-cli-deploy-local-reqs.';
const searchStagesMessage8 =
  'Using $search and $vectorSearch aggregation stages requires additional configuration. ' +
  'Please connect to Atlas or an AtlasCLI local deployment to enable.For more information on ' +
  'how to connect, see https://dochub.mongodb.org/core/atlas-cli-deploy-local-reqs.';

interface Refusals {
  readonly indexCommands: { code: number; message: string };
  readonly listStage: { code: number; message: string };
  readonly searchStage: (stage: string) => { code: number; message: string };
}

const byVersion: Record<'7.0' | '8.0', Refusals> = {
  '7.0': {
    indexCommands: { code: 115, message: 'Search index commands are only supported with Atlas.' },
    listStage: {
      code: 6047401,
      message: '$listSearchIndexes stage is only allowed on MongoDB Atlas',
    },
    searchStage: (stage) => ({
      code: 6047401,
      message: `${stage} stage is only allowed on MongoDB Atlas`,
    }),
  },
  '8.0': {
    indexCommands: { code: 31082, message: indexCommandsMessage8 },
    listStage: { code: 31082, message: indexCommandsMessage8 },
    searchStage: () => ({ code: 31082, message: searchStagesMessage8 }),
  },
};

for (const version of ['8.0', '7.0'] as const) {
  const want = byVersion[version];
  describe(`Atlas Search without Atlas, reporting ${version}`, () => {
    let ts: TestServer;
    before(async () => {
      ts = await startTestServer({ compatibilityVersion: version });
      await ts.client.db('search').collection<TestDoc>('c').insertOne({ _id: 1 });
    });
    after(() => ts.stop());

    it(`search index commands answer ${want.indexCommands.code}`, async () => {
      const c = ts.client.db('search').collection<TestDoc>('c');
      const refusal = want.indexCommands;
      await assert.rejects(
        c.createSearchIndex({ name: 'x', definition: { mappings: { dynamic: true } } }),
        refusal,
      );
      await assert.rejects(c.updateSearchIndex('x', {}), refusal);
      await assert.rejects(c.dropSearchIndex('x'), refusal);
      const db = ts.client.db('search');
      await assert.rejects(db.command({ listSearchIndexes: 'c' }), refusal);
      // Malformed requests fail parsing first, with mongod's IDL codes.
      await assert.rejects(db.command({ createSearchIndexes: 'c' }), { code: 40414 });
      await assert.rejects(db.command({ createSearchIndexes: 'c', indexes: [{}] }), {
        code: 40414,
      });
      await assert.rejects(db.command({ createSearchIndexes: 'c', indexes: 'x' }), { code: 14 });
      await assert.rejects(db.command({ updateSearchIndex: 'c', name: 'x' }), { code: 40414 });
      await assert.rejects(db.command({ dropSearchIndex: 'c', name: 1 }), { code: 14 });
      await assert.rejects(db.command({ dropSearchIndex: 'c', bogus: 1 }), { code: 40415 });
      assert.equal(await c.countDocuments(), 1, 'nothing changed; the server still serves');
    });

    it(`$listSearchIndexes, $search, $searchMeta and $vectorSearch answer ${want.listStage.code}`, async () => {
      const c = ts.client.db('search').collection<TestDoc>('c');
      await assert.rejects(c.listSearchIndexes().toArray(), want.listStage);
      for (const stage of ['$search', '$searchMeta', '$vectorSearch']) {
        await assert.rejects(c.aggregate([{ [stage]: {} }]).toArray(), want.searchStage(stage));
        // Inside a sub-pipeline too.
        await assert.rejects(
          c.aggregate([{ $lookup: { from: 'c', as: 'x', pipeline: [{ [stage]: {} }] } }]).toArray(),
          { code: want.searchStage(stage).code },
        );
      }
      if (version === '8.0')
        await assert.rejects(c.aggregate([{ $search: {} }]).toArray(), {
          codeName: 'SearchNotEnabled',
        });
      assert.equal(await c.countDocuments(), 1, 'the server still serves');
    });
  });
}
