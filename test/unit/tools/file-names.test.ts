// Dump file names as mongodump makes them (Go's url.QueryEscape, long names cut and hashed),
// and the small codecs under the tools: CRC-64 and the element walker.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { BSON } from 'mongodb';
import { Crc64 } from '../../../src/tools/crc64.js';
import {
  collectionFileStem,
  isTruncatedStem,
  queryEscape,
  queryUnescape,
} from '../../../src/tools/file-names.js';
import { orderedDocument, rawField } from '../../../src/tools/raw-bson.js';

describe('dump file names', () => {
  it("escape as Go's url.QueryEscape", () => {
    assert.equal(queryEscape('abc-_.~XYZ09'), 'abc-_.~XYZ09');
    assert.equal(queryEscape('a b/c$d'), 'a+b%2Fc%24d');
    assert.equal(queryEscape('café'), 'caf%C3%A9');
    assert.equal(queryEscape("!*'()"), '%21%2A%27%28%29');
  });

  it('unescape, refusing malformed escapes', () => {
    for (const name of ['a b/c$d', 'café', 'x%y', '+plus+'])
      assert.equal(queryUnescape(queryEscape(name)), name);
    assert.throws(() => queryUnescape('bad%zz'), /invalid URL escape/);
  });

  it('cut names past 238 escaped bytes to 208 bytes, "%24" and a base64url SHA-1', () => {
    const name = 'n'.repeat(300);
    const stem = collectionFileStem(name);
    const hash = createHash('sha1').update(name).digest('base64url');
    assert.equal(stem, `${'n'.repeat(208)}%24${hash}`);
    assert.equal(stem.length, 238);
    assert.ok(isTruncatedStem(stem));
    assert.equal(collectionFileStem('n'.repeat(238)), 'n'.repeat(238));
  });
});

describe('tool codecs', () => {
  it('CRC-64 is the ECMA-182 reflected CRC of Go hash/crc64, chunks or not', () => {
    const whole = new Crc64();
    whole.update(Buffer.from('123456789'));
    assert.equal(whole.value(), 0x995dc9bbdf1939fan);
    const parts = new Crc64();
    parts.update(Buffer.from('1234'));
    parts.update(Buffer.from('56789'));
    assert.equal(parts.value(), whole.value());
    assert.equal(new Crc64().value(), 0n);
  });

  it('rebuilds documents in stored field order and reads single fields', () => {
    const doc = Buffer.from(
      BSON.serialize(
        new Map<string, unknown>([
          ['_id', 1],
          ['b', 2],
          [
            '1',
            [
              new Map([
                ['z', 1],
                ['0', 2],
              ]),
            ],
          ],
          ['s', 'x'],
        ]),
      ),
    );
    const ordered = orderedDocument(doc);
    assert.deepEqual([...ordered.keys()], ['_id', 'b', '1', 's']);
    assert.ok(Buffer.from(BSON.serialize(ordered)).equals(doc));
    assert.equal(rawField(doc, 's'), 'x');
    assert.equal(rawField(doc, 'missing'), undefined);
  });
});
