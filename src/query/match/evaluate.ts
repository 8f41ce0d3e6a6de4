// Compiling a parsed tree into closures, once; evaluation is then a walk over them.
//
// Two evaluation modes, as in mongod: against a whole document (`matches`: a path node visits
// every value its path reaches and succeeds on the first that passes its test), and against one
// value (`matchesSingleElement`: used for the conditions of $elemMatch's value form).
//
// Match details follow mongod: $and passes them to its children and clears them when it fails;
// $or, $nor and $not never record a position.

import { forEachPathValue } from '../../bson/path.js';
import type { BsonDocument } from '../../bson/types.js';
import type { DocumentTest, MatchDetails, MatchNode, PathNode, ValueTest } from './types.js';

export function compileDocumentTest(node: MatchNode): DocumentTest {
  switch (node.kind) {
    case 'and':
      return andTest(node.children.map(compileDocumentTest));
    case 'or': {
      const tests = node.children.map(compileDocumentTest);
      return (doc) => tests.some((t) => t(doc, undefined));
    }
    case 'nor': {
      const tests = node.children.map(compileDocumentTest);
      return (doc) => !tests.some((t) => t(doc, undefined));
    }
    case 'not': {
      const test = compileDocumentTest(node.child);
      return (doc) => !test(doc, undefined);
    }
    case 'alwaysTrue':
      return () => true;
    case 'alwaysFalse':
      return () => false;
    case 'expr':
    case 'jsonSchema':
    case 'sampleRate':
    case 'where':
    case 'text':
      return node.test;
    default:
      return pathTest(node);
  }
}

function andTest(tests: DocumentTest[]): DocumentTest {
  return (doc, details) => {
    for (const t of tests) {
      if (t(doc, details)) continue;
      if (details) details.elemMatchKey = undefined;
      return false;
    }
    return true;
  };
}

/** A path node against a document: the first reached value that passes wins. */
function pathTest(node: PathNode): DocumentTest {
  const { parts, arrays, test } = node;
  return (doc: BsonDocument, details: MatchDetails | undefined) => {
    let matched = false;
    forEachPathValue(doc, parts, arrays, (value, arrayOffset) => {
      if (!test(value, details)) return false;
      if (details && arrayOffset !== undefined) details.elemMatchKey = arrayOffset;
      matched = true;
      return true;
    });
    return matched;
  };
}

/** A node against one value (the value form of $elemMatch); only path and logical nodes occur. */
export function compileValueTest(node: MatchNode): ValueTest {
  switch (node.kind) {
    case 'and': {
      const tests = node.children.map(compileValueTest);
      return (v) => tests.every((t) => t(v, undefined));
    }
    case 'not': {
      const test = compileValueTest(node.child);
      return (v) => !test(v, undefined);
    }
    case 'alwaysTrue':
      return () => true;
    case 'alwaysFalse':
    case 'or':
    case 'nor':
    case 'expr':
    case 'jsonSchema':
    case 'sampleRate':
    case 'where':
    case 'text':
      return () => false;
    default:
      return node.test;
  }
}
