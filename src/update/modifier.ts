// The leaf of an update tree: one modifier ($set, $inc, …) at one path, and the logic every
// modifier shares (mongod's ModifierNode): apply to an existing element or create the missing
// path, refuse changes to `_id`, validate what changed for storage, log the changed path.
//
// Each operator file only says how it changes an existing value and what value it creates.

import { isArray } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import { setOwn } from '../bson/document.js';
import { ErrorCode, fail } from '../errors.js';
import { formatElement } from '../bson/format.js';
import { parseArrayIndex, parseCreateIndex } from './path.js';
import { isObjectLike } from './state.js';
import type { ApplyState, Loc } from './state.js';
import { scanElement } from './storage-validation.js';

/** mongod refuses to pad an array with more nulls than this to reach an index (pathsupport). */
export const arrayPaddingMax = 1_500_000;

export type ModifyResult =
  | { readonly kind: 'noop' }
  /** The value at the path was replaced or changed in place. */
  | { readonly kind: 'updated' }
  /** The field was removed from its document. */
  | { readonly kind: 'removed' }
  /** Elements were appended to the array at the path, starting at index `from`. */
  | { readonly kind: 'appended'; readonly from: number };

export const noop: ModifyResult = { kind: 'noop' };
export const updated: ModifyResult = { kind: 'updated' };

/** An existing element a modifier is applied to. */
export interface Target {
  readonly loc: Loc;
  /** The path to the element (array positions as decimal strings). */
  readonly path: readonly string[];
  readonly value: BsonValue;
  readonly state: ApplyState;
}

export interface Modifier {
  /** The operator name, for messages. */
  readonly name: string;
  /** May create the path when it is missing ($set, $inc, $push, …). */
  readonly allowCreation: boolean;
  /** A missing path that could not even be created is a no-op, not an error ($unset). */
  readonly allowNonViablePath: boolean;
  /** Applies only while building an upsert's document ($setOnInsert). */
  readonly insertOnly: boolean;
  /** Whether what it writes must be checked for storage (false when it can only remove). */
  readonly validatesStorage: boolean;
  updateExisting(target: Target): ModifyResult;
  /** The value of a newly created element (only called when allowCreation). */
  valueForNew(state: ApplyState): BsonValue;
  /** Replaces the shared application entirely ($rename). */
  applyAt?(
    loc: Loc,
    taken: readonly string[],
    toCreate: readonly string[],
    state: ApplyState,
  ): void;
}

/** Defaults for the flags; operator files override what differs. */
export function defineModifier(
  spec: Partial<Omit<Modifier, 'name' | 'updateExisting'>> &
    Pick<Modifier, 'name' | 'updateExisting'>,
): Modifier {
  return {
    allowCreation: true,
    allowNonViablePath: false,
    insertOnly: false,
    validatesStorage: true,
    valueForNew: () => {
      throw new Error(`${spec.name} does not create fields`);
    },
    ...spec,
  };
}

/** The value at a target, ready to be changed in place (copied once if still shared). */
export function ownedArray(target: Target): BsonArray {
  return target.state.own(target.loc) as BsonArray;
}

/** `{_id: 1}` as it appears in mongod's messages about a document. */
export function idForMessage(state: ApplyState, missing: string): string {
  return state.idElement() ?? missing;
}

/** Refuse a change at or below `_id` (the immutable path of every user write). */
function checkImmutableUnchanged(taken: readonly string[]): void {
  if (taken[0] === '_id') {
    fail(
      ErrorCode.ImmutableField,
      `Performing an update on the path '${taken.join('.')}' would modify the immutable field '_id'`,
    );
  }
}

function validateChanged(state: ApplyState, loc: Loc, path: readonly string[]): void {
  const value = state.valueAt(loc) as BsonValue;
  scanElement(
    value,
    path.length,
    { container: loc.container, name: String(loc.key), fullName: path.join('.') },
    { checkTopLevelDollar: true },
  );
}

function logResult(
  state: ApplyState,
  result: ModifyResult,
  loc: Loc,
  taken: readonly string[],
): void {
  switch (result.kind) {
    case 'updated':
      state.log.set(taken, state.valueAt(loc) as BsonValue);
      break;
    case 'removed':
      state.log.remove(taken);
      break;
    case 'appended': {
      const arr = state.valueAt(loc) as BsonArray;
      for (let i = result.from; i < arr.length; i++)
        state.log.create([...taken, String(i)], arr[i] as BsonValue);
      break;
    }
    case 'noop':
      break;
  }
}

/** Apply a modifier at `loc`, with `toCreate` the missing rest of its path (possibly empty). */
export function applyModifier(
  mod: Modifier,
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  if (mod.insertOnly && !state.isInsert) return;
  if (mod.applyAt) {
    mod.applyAt(loc, taken, toCreate, state);
    return;
  }
  if (toCreate.length > 0) applyToMissing(mod, loc, taken, toCreate, state);
  else applyToExisting(mod, loc, taken, state);
}

export function applyToExisting(
  mod: Modifier,
  loc: Loc,
  taken: readonly string[],
  state: ApplyState,
): void {
  const value = state.valueAt(loc) as BsonValue;
  const result = mod.updateExisting({ loc, path: taken, value, state });
  if (result.kind === 'noop') return;
  checkImmutableUnchanged(taken);
  if (mod.validatesStorage && state.validateForStorage && result.kind !== 'removed')
    validateChanged(state, loc, taken);
  logResult(state, result, loc, taken);
  state.modified = true;
}

export function applyToMissing(
  mod: Modifier,
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  if (!mod.allowCreation) {
    if (!mod.allowNonViablePath) checkViability(loc, taken, toCreate, state);
    return;
  }
  const created = createPathAt(loc, toCreate, mod.valueForNew(state), state);
  const createdPath = [...taken, String(created.key)];
  if (state.validateForStorage) validateChanged(state, created, createdPath);
  if (taken[0] === '_id') {
    const here = formatElement(String(loc.key), state.valueAt(loc) as BsonValue);
    fail(
      ErrorCode.ImmutableField,
      `Updating the path '${taken.join('.')}' to ${here} would modify the immutable field '_id'`,
    );
  }
  // As mongod, the first created component is logged with what it holds; a new array element's
  // null padding is not logged (applying the diff pads the array the same way).
  state.log.create(createdPath, state.valueAt(created) as BsonValue);
  state.modified = true;
}

/** mongod's UpdateLeafNode::checkViability: could the missing path be created at all? */
export function checkViability(
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  const v = state.valueAt(loc) as BsonValue;
  const first = toCreate[0] as string;
  if (isObjectLike(v)) return;
  if (isArray(v) && parseArrayIndex(first) !== undefined) return;
  fail(
    ErrorCode.PathNotViable,
    `Cannot use the part (${first}) of (${taken.join('.')}.${toCreate.join('.')}) to traverse the element ({${formatElement(String(loc.key), v)}})`,
  );
}

function buildNested(parts: readonly string[], value: BsonValue, state: ApplyState): BsonValue {
  let v = value;
  for (let i = parts.length - 1; i >= 0; i--) {
    const doc: BsonDocument = {};
    setOwn(doc, parts[i] as string, v);
    state.adopt(doc);
    v = doc;
  }
  return v;
}

/**
 * pathsupport::createPathAt: create the missing parts below the element at `loc` and put
 * `value` at the end. Under an array the first part must be an index (padded with nulls);
 * everything created below is a subdocument. Returns the location of the first created element.
 */
export function createPathAt(
  loc: Loc,
  toCreate: readonly string[],
  value: BsonValue,
  state: ApplyState,
): Loc {
  const first = toCreate[0] as string;
  const current = state.valueAt(loc) as BsonValue;
  const notViable = (): never =>
    fail(
      ErrorCode.PathNotViable,
      `Cannot create field '${first}' in element {${formatElement(String(loc.key), current)}}`,
    );
  if (isArray(current)) {
    const idx = parseCreateIndex(first);
    if (idx === undefined) notViable();
    const arr = state.own(loc) as BsonArray;
    if (idx !== undefined && idx > arr.length) {
      const pad = idx - arr.length;
      if (pad > arrayPaddingMax)
        fail(ErrorCode.CannotBackfillArray, `can't backfill more than ${arrayPaddingMax} elements`);
      for (let i = 0; i < pad; i++) arr.push(null);
    }
    arr.push(buildNested(toCreate.slice(1), value, state));
    return { container: arr, key: arr.length - 1 };
  }
  if (!isObjectLike(current)) notViable();
  const doc = state.own(loc) as BsonDocument;
  setOwn(doc, first, buildNested(toCreate.slice(1), value, state));
  return { container: doc, key: first };
}
