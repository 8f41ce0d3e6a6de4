// Which top-level fields of a document a filter reads, when the tree says so statically: a
// document holding only those fields (the others absent) matches exactly as the whole one
// does, so a scan can decode just them from a stored record (src/query/exec/stages.ts).

import type { MatchNode } from './types.js';

/**
 * The top-level field names `tree` reads (the first component of each path; an $elemMatch
 * reads only below its own path), or undefined when a node may read the whole document:
 * $expr, $jsonSchema, $where, $text, $near and any kind this does not know.
 */
export function topLevelFieldsRead(tree: MatchNode): string[] | undefined {
  const names = new Set<string>();
  const visit = (node: MatchNode): boolean => {
    switch (node.kind) {
      case 'and':
      case 'or':
      case 'nor':
        return node.children.every(visit);
      case 'not':
        return visit(node.child);
      case 'alwaysTrue':
      case 'alwaysFalse':
        return true;
      case 'eq':
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte':
      case 'in':
      case 'regex':
      case 'exists':
      case 'type':
      case 'size':
      case 'mod':
      case 'bitsAllSet':
      case 'bitsAllClear':
      case 'bitsAnySet':
      case 'bitsAnyClear':
      case 'elemMatchObject':
      case 'elemMatchValue':
      case 'geo': {
        const first = node.parts[0];
        if (first === undefined) return false;
        names.add(first);
        return true;
      }
      default:
        return false;
    }
  };
  return visit(tree) ? [...names] : undefined;
}
