// Index specs of the special index kinds ("plugins", as mongod calls them): "text", "2dsphere"
// and "2d". createIndexes' validation (indexes.ts) hands a spec whose key names a plugin here:
//
// - text (mongod's FTSSpec::fixSpec): the text fields become {_fts: "text", _ftsx: 1} at their
//   place in the key (other fields before and after them, all text fields adjacent), `weights`
//   is filled in (integer weights in (0, 100000), field names checked; "$**" indexes every
//   string), `default_language` (default "english") and `language_override` (default
//   "language") are checked, and `textIndexVersion` becomes 3; a collection has one text index;
// - 2dsphere: `2dsphereIndexVersion` (1 to 3; 3 unless given) and the S2 levels
//   `coarsestIndexedLevel` / `finestIndexedLevel`;
// - 2d: one 2d field, first in the key; `bits` in (0, 32], `min` < `max`;
// - hashed: one hashed field (31303), the others ascending or descending; never unique (16764).
//
// Errors are CannotCreateIndex (67) with mongod's messages unless noted.

import { setOwn } from '../../bson/document.js';
import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import type { Collection } from '../../catalog/collection.js';
import { indexKindOf } from '../../catalog/index-kind.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { hasIllegalDollarPart } from './wildcard-spec.js';
import { textLanguage } from '../../text/languages.js';
import { TEXT_INDEX_VERSION, TEXT_WEIGHT_MAX, WILDCARD_WEIGHT_FIELD } from '../../text/spec.js';

export type IndexPlugin = 'text' | '2dsphere' | '2d' | 'hashed';

const pluginNames: ReadonlySet<string> = new Set(['text', '2dsphere', '2d', 'hashed']);

/** The options each plugin accepts (others of the special options stay NotImplemented). */
const pluginOptions: Readonly<Record<IndexPlugin, ReadonlySet<string>>> = {
  text: new Set(['weights', 'default_language', 'language_override', 'textIndexVersion']),
  '2dsphere': new Set(['2dsphereIndexVersion', 'coarsestIndexedLevel', 'finestIndexedLevel']),
  '2d': new Set(['bits', 'min', 'max']),
  hashed: new Set(),
};

function cannotCreate(message: string): CommandError {
  return new CommandError(ErrorCode.CannotCreateIndex, message);
}

/** Whether a key-pattern value names a plugin this server builds. */
export function isSupportedPlugin(value: BsonValue): value is IndexPlugin {
  return typeof value === 'string' && pluginNames.has(value);
}

/** The plugin a key pattern names, undefined for an ordinary index; refuses two plugins. */
export function pluginOf(key: BsonDocument): IndexPlugin | undefined {
  let found: IndexPlugin | undefined;
  for (const v of Object.values(key)) {
    if (!isSupportedPlugin(v)) continue;
    if (found !== undefined && found !== v)
      throw cannotCreate("Can't use more than one index plugin for a single index.");
    found = v;
  }
  return found;
}

export function pluginAcceptsOption(plugin: IndexPlugin | undefined, option: string): boolean {
  return plugin !== undefined && pluginOptions[plugin].has(option);
}

/** Checks one field of a plugin key (names as for any index; "$**" only as a text wildcard). */
export function checkPluginField(field: string, plugin: IndexPlugin): void {
  if (field === WILDCARD_WEIGHT_FIELD && plugin === 'text') return;
  if (field.split('.').some((p) => p === ''))
    throw cannotCreate('Index keys cannot contain an empty field.');
  if (hasIllegalDollarPart(field, { wildcard: false }))
    throw cannotCreate("Index key contains an illegal field name: field name starts with '$'.");
}

function isDirection(v: BsonValue): boolean {
  const n = numericValue(v);
  return n === 1 || n === -1;
}

// ---- text ---------------------------------------------------------------------------------------

function fixTextKey(key: BsonDocument): { key: BsonDocument; weights: Map<string, number> } {
  const weights = new Map<string, number>();
  const out: BsonDocument = {};
  let added = false;
  const entries = Object.entries(key);
  for (const [field, v] of entries) {
    if (field === '_fts') {
      if (v !== 'text') throw cannotCreate('expecting _fts:"text"');
      added = true;
      out[field] = v;
    } else if (field === '_ftsx') {
      if (numericValue(v) !== 1) throw cannotCreate('expecting _ftsx:1');
      out[field] = v;
    } else if (v === 'text') {
      if (!added) {
        out['_fts'] = 'text';
        out['_ftsx'] = new Int32(1);
        added = true;
      }
      weights.set(field, 1);
    } else {
      if (!isDirection(v))
        throw cannotCreate('expected value 1 or -1 for non-text key in compound index');
      setOwn(out, field, v);
    }
  }
  // Layout: ordinary fields, then the text fields (adjacent), then ordinary fields.
  let i = 0;
  const reserved = (f: string): void => {
    if (f === '_fts' || f === '_ftsx')
      throw cannotCreate('text index with reserved fields _fts/_ftsx not allowed');
  };
  while (i < entries.length && typeof entries[i]?.[1] !== 'string') {
    reserved(entries[i]?.[0] as string);
    i++;
  }
  if (entries[i]?.[0] === '_fts') {
    if (entries[i + 1]?.[0] !== '_ftsx') throw cannotCreate('expected _ftsx after _fts');
    i += 2;
  } else {
    while (i < entries.length && typeof entries[i]?.[1] === 'string') {
      reserved(entries[i]?.[0] as string);
      i++;
    }
  }
  for (; i < entries.length; i++) {
    if (typeof entries[i]?.[1] === 'string')
      throw cannotCreate("'text' fields in index must all be adjacent");
    reserved(entries[i]?.[0] as string);
  }
  return { key: out, weights };
}

function checkWeightField(field: string): void {
  if (field === WILDCARD_WEIGHT_FIELD) return;
  const parts = field.split('.');
  if (field === '') throw cannotCreate('weight cannot be on an empty field');
  if (parts.some((p) => p === '')) throw cannotCreate('weight cannot have empty path component');
  if (parts.some((p) => p.startsWith('$')))
    throw cannotCreate('weight cannot have path component with $ prefix');
}

/** mongod's FTSSpec::fixSpec for text index version 3. */
function fixTextSpec(spec: BsonDocument): BsonDocument {
  const { key, weights } = fixTextKey(spec['key'] as BsonDocument);
  const w = spec['weights'];
  if (isPlainDocument(w)) {
    for (const [field, v] of Object.entries(w)) {
      const n = numericValue(v);
      if (n === undefined) throw cannotCreate('weight for text index needs numeric type');
      weights.set(field, Math.trunc(n));
    }
  } else if (w === WILDCARD_WEIGHT_FIELD) {
    weights.set(WILDCARD_WEIGHT_FIELD, 1);
  } else if (w !== undefined) {
    throw cannotCreate("text index option 'weights' must be an object");
  }
  if (weights.size === 0)
    throw cannotCreate("text index option 'weights' must specify fields or the wildcard");
  const weightsDoc: BsonDocument = {};
  for (const field of [...weights.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const n = weights.get(field) as number;
    if (!(n > 0 && n < TEXT_WEIGHT_MAX)) {
      throw cannotCreate(
        `text index weight must be in the exclusive interval (0,${TEXT_WEIGHT_MAX}) but found: ${n}`,
      );
    }
    checkWeightField(field);
    setOwn(weightsDoc, field, new Int32(n));
  }
  const language = spec['default_language'];
  if (language !== undefined && typeof language !== 'string')
    throw cannotCreate('default_language needs a string type');
  if (typeof language === 'string' && textLanguage(language) === undefined)
    throw cannotCreate('default_language is not valid');
  const override = spec['language_override'];
  if (override !== undefined && typeof override !== 'string')
    throw cannotCreate('language_override must be a string');
  if (
    typeof override === 'string' &&
    (override === '' || override.startsWith('$') || override.includes('.'))
  )
    throw cannotCreate('language_override is not valid');
  const version = spec['textIndexVersion'];
  if (version !== undefined) {
    const n = numericValue(version);
    if (n === undefined)
      throw cannotCreate("text index option 'textIndexVersion' must be a number");
    if (Math.trunc(n) === 2) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        'text index version 2 is not supported (version 3 is)',
      );
    }
    if (Math.trunc(n) !== TEXT_INDEX_VERSION)
      throw cannotCreate(`bad textIndexVersion: ${Math.trunc(n)}`);
  }
  const out: BsonDocument = {};
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'key') out[k] = key;
    else if (k === 'weights') out[k] = weightsDoc;
    else if (k === 'default_language') out[k] = language as string;
    else if (k === 'language_override') out[k] = override as string;
    else if (k !== 'textIndexVersion') out[k] = v;
  }
  if (out['weights'] === undefined) out['weights'] = weightsDoc;
  if (out['default_language'] === undefined) out['default_language'] = 'english';
  if (out['language_override'] === undefined) out['language_override'] = 'language';
  out['textIndexVersion'] = new Int32(TEXT_INDEX_VERSION);
  return out;
}

// ---- geo --------------------------------------------------------------------------------------

function fix2dsphereSpec(spec: BsonDocument): BsonDocument {
  for (const [field, v] of Object.entries(spec['key'] as BsonDocument)) {
    if (v !== '2dsphere' && !isDirection(v) && numericValue(v) === undefined)
      throw cannotCreate(`Unknown index plugin '${String(v)}' for field ${field}`);
  }
  const version = spec['2dsphereIndexVersion'];
  if (version !== undefined) {
    const n = numericValue(version);
    if (n === undefined || ![1, 2, 3].includes(n)) {
      throw cannotCreate(
        `unsupported geo index version { 2dsphereIndexVersion : ${String(version?.valueOf())} }, only support versions: [1,2,3]`,
      );
    }
    if (n !== 3) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        `2dsphere index version ${n} is not supported (version 3 is)`,
      );
    }
  }
  const level = (name: string, dflt: number): number => {
    const v = spec[name];
    if (v === undefined) return dflt;
    const n = numericValue(v);
    if (n === undefined || !Number.isInteger(n) || n < 0 || n > 30)
      throw cannotCreate(`${name} must be an integer between 0 and 30`);
    return n;
  };
  const coarsest = level('coarsestIndexedLevel', 0);
  const finest = level('finestIndexedLevel', 30);
  if (coarsest > finest)
    throw cannotCreate('finestIndexedLevel must be greater than or equal to coarsestIndexedLevel');
  const { ['2dsphereIndexVersion']: _v, ...rest } = spec;
  return { ...rest, '2dsphereIndexVersion': new Int32(3) };
}

function fix2dSpec(spec: BsonDocument): BsonDocument {
  let geo = false;
  let others = 0;
  for (const [, v] of Object.entries(spec['key'] as BsonDocument)) {
    if (v === '2d') {
      if (geo) throw new CommandError(ErrorCode.Location16800, "can't have 2 geo fields");
      if (others > 0)
        throw new CommandError(ErrorCode.Location16801, '2d has to be first in index');
      geo = true;
    } else others++;
  }
  const number = (name: string, dflt: number): number => {
    const v = spec[name];
    if (v === undefined) return dflt;
    const n = numericValue(v);
    if (n === undefined) throw new CommandError(ErrorCode.TypeMismatch, `${name} must be a number`);
    return n;
  };
  const bits = number('bits', 26);
  if (!(bits > 0 && bits <= 32))
    throw new CommandError(ErrorCode.Location16803, 'bits in geo index must be between 1 and 32');
  if (!(number('max', 180) > number('min', -180)))
    throw new CommandError(ErrorCode.InvalidOptions, 'max must be greater than min');
  return spec;
}

// ---- hashed -----------------------------------------------------------------------------------

/** mongod's parseHashParams and HashAccessMethod's checks. */
function checkHashedSpec(spec: BsonDocument): BsonDocument {
  const key = spec['key'] as BsonDocument;
  const hashed = Object.values(key).filter((v) => v === 'hashed').length;
  if (hashed > 1) {
    throw new CommandError(
      ErrorCode.Location31303,
      `A maximum of one index field is allowed to be hashed but found ${hashed} for 'key' ${formatBson(key)}`,
    );
  }
  const unique = spec['unique'];
  if (unique !== undefined && unique !== null && unique !== false && numericValue(unique) !== 0) {
    throw new CommandError(
      ErrorCode.Location16764,
      'Currently hashed indexes cannot guarantee uniqueness. Use a regular index.',
    );
  }
  return spec;
}

/** The stored form of a validated plugin spec ({v, key, name, ...}). */
export function finishPluginSpec(plugin: IndexPlugin, spec: BsonDocument): BsonDocument {
  if (plugin === 'text') return fixTextSpec(spec);
  if (plugin === '2dsphere') return fix2dsphereSpec(spec);
  if (plugin === 'hashed') return checkHashedSpec(spec);
  return fix2dSpec(spec);
}

/** mongod's "one text index per collection" (after the identical-index check). */
export function checkPluginConflicts(coll: Collection, spec: BsonDocument): void {
  if (indexKindOf(spec['key'] as BsonDocument) !== 'text') return;
  const existing = [...coll.indexes, ...coll.building].find((i) => i.kind === 'text');
  if (existing !== undefined) {
    throw cannotCreate(
      `only one text index per collection allowed, found existing text index "${existing.meta.name}"`,
    );
  }
}
