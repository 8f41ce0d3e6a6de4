// The conjuncts of a filter tree and a filter over some of them: what the special plans ($text,
// $near) apply besides their own predicate.

import type { DocumentFilter } from '../exec/stages.js';
import { compileDocumentTest } from '../match/evaluate.js';
import { topLevelFieldsRead } from '../match/fields.js';
import type { MatchNode } from '../match/index.js';

/** The conjuncts of a tree (a top-level AND flattened). */
export function conjunctsOf(tree: MatchNode): MatchNode[] {
  return tree.kind === 'and' ? tree.children.flatMap(conjunctsOf) : [tree];
}

/** One node for several conjuncts (their AND), undefined for none. */
export function andOfNodes(nodes: readonly MatchNode[]): MatchNode | undefined {
  if (nodes.length === 0) return undefined;
  return nodes.length === 1 ? (nodes[0] as MatchNode) : { kind: 'and', children: [...nodes] };
}

/** A document filter over conjuncts (undefined for none). */
export function filterOfNodes(nodes: readonly MatchNode[]): DocumentFilter | undefined {
  const tree = andOfNodes(nodes);
  if (tree === undefined) return undefined;
  const test = compileDocumentTest(tree);
  return { matches: (doc, details) => test(doc, details), fieldsRead: topLevelFieldsRead(tree) };
}
