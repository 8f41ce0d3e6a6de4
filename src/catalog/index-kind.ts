// The kind of an index, from its key pattern: a string value names an index plugin as in
// mongod ("text" after normalisation is {_fts: "text", _ftsx: 1}; "2dsphere"; "2d"); numbers
// make an ordinary (btree) index. Only btree indexes serve ordinary predicates and sorts; the
// special kinds are used by their own operators ($text, the geo operators), except "hashed"
// (one field's values replaced by their hash), which serves equality and $in on that field.
// A "$**" field ("$**" or "a.b.$**") with a number makes a wildcard index (wildcard-keys.ts),
// which the planner sees, for one query path, as a two-field index (query/planner/wildcard-plan.ts).

import type { BsonDocument } from '../bson/types.js';
import { wildcardFieldOf } from './wildcard-keys.js';

export type IndexKind = 'btree' | 'text' | '2dsphere' | '2d' | 'hashed' | 'wildcard';

export function indexKindOf(key: BsonDocument): IndexKind {
  for (const v of Object.values(key)) {
    if (v === 'text') return 'text';
    if (v === '2dsphere') return '2dsphere';
    if (v === '2d') return '2d';
    if (v === 'hashed') return 'hashed';
  }
  return wildcardFieldOf(key) === undefined ? 'btree' : 'wildcard';
}
