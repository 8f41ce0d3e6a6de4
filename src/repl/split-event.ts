// $changeStreamSplitLargeEvent: a change event too large to send (over 16 MiB) is cut into
// fragments, as mongod's change_stream_split_event: every field but `_id` is placed, smallest
// first (by BSON size, then name), into fragments filled greedily up to the size limit; each
// fragment carries its own resume token (the event's, with the fragment's index) as `_id` and
// `splitEvent: {fragment, of}` (1-based).

import { Int32, calculateObjectSize } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { decodeResumeToken, encodeResumeToken } from './resume-token.js';

/** BSON bytes of one element (type byte, name, NUL, value). */
function elementBytes(name: string, value: BsonValue): number {
  return calculateObjectSize({ [name]: value }) - 5;
}

/**
 * The fragments of `event` (whose `_id` is its resume token), each at most `maxBytes` of
 * BSON, the first `skip` of them left out (a stream resumed from a fragment's token).
 */
export function splitChangeEvent(event: BsonDocument, maxBytes: number, skip = 0): BsonDocument[] {
  const fields = Object.keys(event)
    .filter((k) => k !== '_id')
    .map((name) => ({ name, value: event[name] as BsonValue, bytes: 0 }));
  for (const f of fields) f.bytes = elementBytes(f.name, f.value);
  fields.sort((a, b) => a.bytes - b.bytes || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (fields.length === 0)
    fail(
      ErrorCode.Location7182502,
      "Cannot split an empty event or an event containing solely '_id' field",
    );
  const token = decodeResumeToken(event['_id']);
  const fragments: BsonDocument[] = [];
  let i = 0;
  while (i < fields.length) {
    const fragment: BsonDocument = {
      _id: encodeResumeToken({ ...token, fragmentNum: fragments.length }),
      splitEvent: { fragment: new Int32(fragments.length + 1), of: new Int32(0) },
    };
    let size = calculateObjectSize(fragment);
    // At least one field per fragment; then as many as fit.
    do {
      const f = fields[i] as (typeof fields)[number];
      fragment[f.name] = f.value;
      size += f.bytes;
      i++;
    } while (i < fields.length && size + (fields[i] as (typeof fields)[number]).bytes <= maxBytes);
    if (size > maxBytes)
      fail(
        ErrorCode.Location7182500,
        `Splitting change event failed: fragment size ${size} is greater than maximum allowed fragment size ${maxBytes}`,
      );
    fragments.push(fragment);
  }
  const of = new Int32(fragments.length);
  for (const f of fragments) (f['splitEvent'] as BsonDocument)['of'] = of;
  return fragments.slice(skip);
}
