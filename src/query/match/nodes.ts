// Constructors for tree nodes, so every operator builds its node the same way.

import { splitPath } from '../../bson/path.js';
import type { LeafArrayMode, PathValue } from '../../bson/path.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { comparisonTest } from './compare.js';
import type { ComparisonOp } from './compare.js';
import { regexValueTest } from './regex.js';
import type { MatchDetails, MatchNode, PathNode, ValueTest } from './types.js';

type PathNodeData = Omit<PathNode, 'path' | 'parts' | 'arrays' | 'test'>;

/** A node on `path` whose test runs on each value the path reaches. */
export function pathNode<D extends PathNodeData>(
  path: string,
  data: D,
  test: ValueTest,
  arrays: LeafArrayMode = 'traverse',
): PathNode {
  return { ...data, path, parts: splitPath(path), arrays, test } as PathNode;
}

/** A test that ignores match details. */
export function simpleTest(f: (v: PathValue) => boolean): ValueTest {
  return (v: PathValue, _details: MatchDetails | undefined) => f(v);
}

/** `{path: {<op>: value}}` for $eq $lt $lte $gt $gte; undefined is refused as in mongod. */
export function comparisonNode(op: ComparisonOp, path: string, value: BsonValue): PathNode {
  if (value === undefined) fail(ErrorCode.BadValue, 'cannot compare to undefined');
  return pathNode(path, { kind: op, value }, simpleTest(comparisonTest(op, value)));
}

export function regexNode(path: string, pattern: string, flags: string): PathNode {
  return pathNode(
    path,
    { kind: 'regex', pattern, flags },
    simpleTest(regexValueTest(pattern, flags)),
  );
}

export function notNode(child: MatchNode): MatchNode {
  return { kind: 'not', child };
}

/** An AND of the given nodes, or the node itself when there is one. */
export function andOf(children: MatchNode[]): MatchNode {
  return children.length === 1 ? (children[0] as MatchNode) : { kind: 'and', children };
}
