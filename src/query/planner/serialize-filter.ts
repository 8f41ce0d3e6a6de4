// The parsed filter as mongod serialises its MatchExpression tree ({a: {$eq: 1}},
// {$and: [...]}): explain's parsedQuery, the planner's cache keys and text plans, and the
// partial filter expressions listIndexes shows. Apart from explain.ts, which uses the planner.

import { Code, Double, Int32, Long } from 'bson';
import { setOwn } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { BSONRegExp } from '../../bson/types.js';
import type { MatchNode } from '../match/index.js';

function leaf(path: string, op: string, value: BsonValue): BsonDocument {
  const inner: BsonDocument = {};
  inner[op] = value;
  const out: BsonDocument = {};
  setOwn(out, path, inner);
  return out;
}

/** A MatchNode tree back as a filter document, in mongod's normalised form. */
export function serializeFilter(node: MatchNode): BsonDocument {
  switch (node.kind) {
    case 'eq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return leaf(node.path, `$${node.kind}`, node.value);
    case 'in':
      return leaf(node.path, '$in', [
        ...node.values,
        ...node.regexes.map((r) => new BSONRegExp(r.pattern, r.flags)),
      ]);
    case 'regex': {
      const inner: BsonDocument = { $regex: node.pattern };
      if (node.flags !== '') inner['$options'] = node.flags;
      const out: BsonDocument = {};
      out[node.path] = inner;
      return out;
    }
    case 'exists':
      return leaf(node.path, '$exists', true);
    case 'type':
      return leaf(node.path, '$type', [
        ...(node.types.allNumbers ? ['number'] : []),
        ...node.types.types,
      ]);
    case 'size':
      return leaf(node.path, '$size', new Int32(node.size));
    case 'mod':
      return leaf(node.path, '$mod', [
        Long.fromBigInt(node.divisor),
        Long.fromBigInt(node.remainder),
      ]);
    case 'bitsAllSet':
    case 'bitsAllClear':
    case 'bitsAnySet':
    case 'bitsAnyClear':
      return leaf(
        node.path,
        `$${node.kind}`,
        node.positions.map((p) => new Int32(p)),
      );
    case 'elemMatchObject':
      return leaf(node.path, '$elemMatch', serializeFilter(node.child));
    case 'elemMatchValue': {
      const inner: BsonDocument = {};
      for (const c of node.children) {
        const d = serializeFilter(c);
        const v = d[''];
        if (v !== undefined && typeof v === 'object' && v !== null) Object.assign(inner, v);
      }
      return leaf(node.path, '$elemMatch', inner);
    }
    case 'geo':
    case 'near': {
      const out: BsonDocument = {};
      out[node.path] = node.raw;
      return out;
    }
    case 'and':
      return node.children.length === 0 ? {} : { $and: node.children.map(serializeFilter) };
    case 'or':
      return { $or: node.children.map(serializeFilter) };
    case 'nor':
      return { $nor: node.children.map(serializeFilter) };
    case 'not': {
      const child = serializeFilter(node.child);
      const [path] = Object.keys(child);
      if (path !== undefined && !path.startsWith('$') && 'path' in node.child) {
        return leaf(path, '$not', child[path] as BsonValue);
      }
      return { $nor: [child] };
    }
    case 'alwaysTrue':
      return { $alwaysTrue: new Int32(1) };
    case 'alwaysFalse':
      return { $alwaysFalse: new Int32(1) };
    case 'expr':
      return { $expr: node.expr };
    case 'jsonSchema':
      return { $jsonSchema: node.schema };
    case 'sampleRate':
      return { $sampleRate: new Double(node.rate) };
    case 'where':
      return { $where: new Code(node.code) };
    case 'text':
      return node.search.serialized;
  }
}

/** Parameters only the execution statistics show. */
