// $rename: {$rename: {from: "to"}} moves a field. It behaves as a $set of the destination to
// the source's value followed by an $unset of the source. The source takes a placeholder
// node in the update tree (so that another operator on it conflicts) and the work happens at
// the destination's place in the tree, i.e. in the destination's order among siblings.
// Neither path may go through an array, and a missing source is a no-op.

import { isArray } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { formatElement } from '../../bson/format.js';
import {
  applyToExisting,
  applyToMissing,
  defineModifier,
  idForMessage,
  updated,
} from '../modifier.js';
import type { Modifier } from '../modifier.js';
import { isArrayFilterPart, isPositionalPart, parseCreateIndex, splitPath } from '../path.js';
import { isObjectLike, rootLoc } from '../state.js';
import type { ApplyState, Loc } from '../state.js';
import type { ModifierDefinition } from './definition.js';

/** Marks the source path of a $rename in the tree; applying it does nothing. */
export const renameSourcePlaceholder: Modifier = defineModifier({
  name: '$rename',
  allowCreation: false,
  allowNonViablePath: true,
  updateExisting: () => ({ kind: 'noop' }),
  applyAt: () => undefined,
});

function isDynamic(parts: readonly string[]): boolean {
  return parts.some((p) => isPositionalPart(p) || isArrayFilterPart(p));
}

function isStrictPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length < b.length && a.every((p, i) => p === b[i]);
}

interface Source {
  readonly loc: Loc;
  readonly path: readonly string[];
  /** Names of the elements from the root down to the source, with whether each is an array. */
  readonly ancestors: ReadonlyArray<{ readonly name: string; readonly isArray: boolean }>;
}

/**
 * pathsupport::findLongestPrefix for the source: the element if the whole path exists,
 * undefined if some part is missing, PathNotViable if a part would need to go through a
 * scalar or name a field of an array.
 */
function findSource(state: ApplyState, from: string, parts: readonly string[]): Source | undefined {
  let loc = rootLoc;
  const path: string[] = [];
  const ancestors: Array<{ name: string; isArray: boolean }> = [];
  for (const [i, part] of parts.entries()) {
    const v = state.valueAt(loc) as BsonValue;
    const viable = isObjectLike(v) || (isArray(v) && parseCreateIndex(part) !== undefined);
    if (!viable) {
      // mongod names the part that led to the element it cannot traverse.
      fail(
        ErrorCode.PathNotViable,
        `cannot use the part (${parts[i - 1] ?? part} of ${from}) to traverse the element ({${formatElement(String(loc.key), v)}})`,
      );
    }
    const next = state.childOf(loc, part);
    if (next === undefined) return undefined;
    if (loc !== rootLoc) ancestors.push({ name: String(loc.key), isArray: isArray(v) });
    loc = next;
    path.push(String(next.key));
  }
  return { loc, path, ancestors };
}

function closestArray(
  ancestors: ReadonlyArray<{ readonly name: string; readonly isArray: boolean }>,
): string | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i];
    if (a?.isArray) return a.name;
  }
  return undefined;
}

/** The containers from the root to (excluding) the element at `taken`, and the element itself. */
function destinationChain(
  state: ApplyState,
  taken: readonly string[],
): Array<{ name: string; isArray: boolean }> {
  const chain: Array<{ name: string; isArray: boolean }> = [];
  let loc = rootLoc;
  for (const part of taken) {
    const next = state.childOf(loc, part);
    if (next === undefined) break;
    loc = next;
    chain.push({ name: String(next.key), isArray: isArray(state.valueAt(next)) });
  }
  return chain;
}

export const $rename: ModifierDefinition = {
  name: '$rename',
  parse(from, value) {
    const to = value as string;
    if (to.includes('\0'))
      fail(ErrorCode.BadValue, "The 'to' field for $rename cannot contain an embedded null byte");
    const fromParts = splitPath(from);
    const toParts = splitPath(to);
    const shown = formatElement(from, value);
    if (fromParts.length === toParts.length && fromParts.every((p, i) => p === toParts[i])) {
      fail(ErrorCode.BadValue, `The source and target field for $rename must differ: ${shown}`);
    }
    if (isStrictPrefix(fromParts, toParts) || isStrictPrefix(toParts, fromParts)) {
      fail(
        ErrorCode.BadValue,
        `The source and target field for $rename must not be on the same path: ${shown}`,
      );
    }
    if (isDynamic(fromParts))
      fail(ErrorCode.BadValue, `The source field for $rename may not be dynamic: ${from}`);
    if (isDynamic(toParts))
      fail(ErrorCode.BadValue, `The destination field for $rename may not be dynamic: ${to}`);

    return defineModifier({
      name: '$rename',
      updateExisting: () => ({ kind: 'noop' }),
      applyAt(loc, taken, toCreate, state) {
        const source = findSource(state, from, fromParts);
        if (source === undefined) return;
        const id = (): string => idForMessage(state, 'no id');
        const sourceArray = closestArray(source.ancestors);
        if (sourceArray !== undefined) {
          fail(
            ErrorCode.BadValue,
            `The source field cannot be an array element, '${from}' in doc with ${id()} has an array field called '${sourceArray}'`,
          );
        }
        // The destination's existing part, up to the element it overwrites (excluded) or the
        // deepest existing element under which it will be created (included).
        const chain = destinationChain(state, taken);
        const checked = toCreate.length === 0 ? chain.slice(0, -1) : chain;
        const destArray = closestArray(checked);
        if (destArray !== undefined) {
          fail(
            ErrorCode.BadValue,
            `The destination field cannot be an array element, '${to}' in doc with ${id()} has an array field called '${destArray}'`,
          );
        }
        const moved = state.valueAt(source.loc) as BsonValue;
        // $set of the destination, without $set's no-op check (mongod's SetElementNode).
        const setElement = defineModifier({
          name: '$rename',
          updateExisting(target) {
            target.state.setAt(target.loc, moved);
            return updated;
          },
          valueForNew: () => moved,
        });
        if (toCreate.length > 0) applyToMissing(setElement, loc, taken, toCreate, state);
        else applyToExisting(setElement, loc, taken, state);
        applyToExisting(unsetSource, source.loc, source.path, state);
      },
    });
  },
};

const unsetSource = defineModifier({
  name: '$rename',
  allowCreation: false,
  validatesStorage: false,
  updateExisting(target) {
    target.state.removeAt(target.loc);
    return { kind: 'removed' };
  },
});
