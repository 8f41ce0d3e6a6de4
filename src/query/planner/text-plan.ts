// Planning a $text query (mongod's planner_access.cpp text sub-plan; src/query/exec/text.ts has
// the stages). A $text query always uses the collection's text index: the $text must be at the
// top of the filter (or in its top-level $and), the index's prefix fields need equality
// predicates (they become the scans' prefix), and the other predicates filter the documents.

import { setOwn } from '../../bson/document.js';
import { Int32 } from 'bson';
import { encodeKey, keyPrefixUpperBound } from '../../bson/keystring.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { BSONRegExp, isPlainDocument } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess } from '../../catalog/index-access.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { ReadView } from '../../storage/engine.js';
import { indexedTerm } from '../../text/spec.js';
import type { TextSearch } from '../../text/query.js';
import { FetchStage } from '../exec/fetch.js';
import { IndexScanStage, OrStage } from '../exec/index-scan.js';
import type { KeySource } from '../exec/index-scan.js';
import { RowsStage } from '../exec/stages.js';
import type { DocumentFilter, PlanStage } from '../exec/stages.js';
import { TextMatchStage, TextOrStage } from '../exec/text.js';
import { andOfNodes, conjunctsOf, filterOfNodes } from './conjuncts.js';
import type { MatchNode } from '../match/index.js';
import { serializeFilter } from './serialize-filter.js';

function plannerError(code: number, message: string): CommandError {
  return new CommandError(
    code,
    `error processing query: planner returned error :: caused by :: ${message}`,
  );
}

function countKind(node: MatchNode, kind: string): number {
  let n = node.kind === kind ? 1 : 0;
  if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor')
    for (const c of node.children) n += countKind(c, kind);
  else if (node.kind === 'not') n += countKind(node.child, kind);
  else if (node.kind === 'elemMatchObject') n += countKind(node.child, kind);
  return n;
}

function underKind(node: MatchNode, kind: string, under: string, inside = false): boolean {
  if (node.kind === kind) return inside;
  const now = inside || node.kind === under;
  if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor')
    return node.children.some((c) => underKind(c, kind, under, now));
  if (node.kind === 'not') return underKind(node.child, kind, under, now);
  return false;
}

/** mongod's CanonicalQuery::isValid rules for $text and $near (BadValue otherwise). */
export function checkSpecialPredicates(
  tree: MatchNode | undefined,
  options: { natural: boolean; hint: boolean },
): void {
  if (tree === undefined) return;
  const text = countKind(tree, 'text');
  if (text > 1) throw new CommandError(ErrorCode.BadValue, 'Too many text expressions');
  if (text === 1 && underKind(tree, 'text', 'nor'))
    throw new CommandError(ErrorCode.BadValue, 'text expression not allowed in nor');
  const near = countKind(tree, 'near');
  if (near > 1) throw new CommandError(ErrorCode.BadValue, 'Too many geoNear expressions');
  if (near === 1 && !conjunctsOf(tree).some((c) => (c.kind as string) === 'near'))
    throw new CommandError(ErrorCode.BadValue, 'geoNear must be top-level expr');
  if (text > 0 && near > 0)
    throw new CommandError(ErrorCode.BadValue, 'text and geoNear not allowed in same query');
  if (text > 0 && options.natural)
    throw new CommandError(
      ErrorCode.BadValue,
      'text and $natural sort order not allowed in same query',
    );
  if (text > 0 && options.hint)
    throw new CommandError(ErrorCode.BadValue, 'text and hint not allowed in same query');
}

/** The $text node of a filter and the other conjuncts, when the $text is at the top. */
export function splitText(
  tree: MatchNode | undefined,
): { search: TextSearch; rest: MatchNode[] } | undefined {
  if (tree === undefined || countKind(tree, 'text') === 0) return undefined;
  const all = conjunctsOf(tree);
  const node = all.find((c) => c.kind === 'text');
  if (node === undefined || node.kind !== 'text') {
    throw plannerError(
      ErrorCode.NoQueryExecutionPlans,
      'Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.',
    );
  }
  return { search: node.search, rest: all.filter((c) => c !== node) };
}

function explainFilterOf(nodes: readonly MatchNode[]): () => BsonDocument | undefined {
  return () => {
    const tree = andOfNodes(nodes);
    return tree === undefined ? undefined : serializeFilter(tree);
  };
}

/** An equality a prefix field can take as its index value. */
function prefixValue(node: MatchNode, path: string): BsonValue | undefined {
  if (node.kind !== 'eq' || node.path !== path) return undefined;
  const v = node.value;
  if (Array.isArray(v) || v instanceof BSONRegExp || v === null) return undefined;
  return v;
}

export interface TextPlanRequest {
  readonly coll: Collection;
  readonly view: ReadView;
  readonly search: TextSearch;
  readonly rest: readonly MatchNode[];
  readonly wantTextScore: boolean;
  readonly interrupt?: (() => void) | undefined;
}

/** The plan of a $text query (see the file comment). */
export function textPlan(req: TextPlanRequest): PlanStage {
  const index = req.coll.indexes.find((i) => i.kind === 'text');
  if (index === undefined || index.text === undefined)
    throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
  const spec = index.text;
  let rest = [...req.rest];
  const prefix: BsonValue[] = [];
  const prefixDoc: BsonDocument = {};
  for (const field of spec.extraBefore) {
    const node = rest.find((n) => prefixValue(n, field) !== undefined);
    if (node === undefined) {
      throw plannerError(
        ErrorCode.NoQueryExecutionPlans,
        'failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)',
      );
    }
    const v = prefixValue(node, field) as BsonValue;
    prefix.push(v);
    setOwn(prefixDoc, field, v);
    rest = rest.filter((n) => n !== node);
  }
  const state = index.readState(req.view);
  const multikey = state.multikeyPaths.some((p) => p.length > 0);
  const scans: KeySource[] = req.search.query.termsForBounds.map((term) =>
    termScan(index, state, prefix, term, multikey),
  );
  const filter = filterOfNodes(rest);
  const filterExplain = explainFilterOf(rest);
  let input: PlanStage;
  if (scans.length === 0) {
    input = new RowsStage([], 'EOF');
  } else if (req.wantTextScore) {
    input = new TextOrStage({
      children: scans,
      coll: req.coll,
      search: req.search,
      scoreField: prefix.length + 1,
      directions: index.directions,
      filter,
      filterExplain,
      interrupt: req.interrupt,
    });
  } else {
    const source = scans.length === 1 ? (scans[0] as KeySource) : new OrStage(scans);
    input = new FetchStage(source, req.coll, filter, undefined, filterExplain);
  }
  return new TextMatchStage(input, req.search, {
    indexName: index.meta.name,
    indexPrefix: prefixDoc,
  });
}

/** One term's keys: [prefix, term, any score], read backward (highest score first). */
function termScan(
  index: IndexAccess,
  state: ReturnType<IndexAccess['readState']>,
  prefix: readonly BsonValue[],
  term: string,
  multikey: boolean,
): IndexScanStage {
  const dirs = index.directions.slice(0, prefix.length + 1);
  const start = encodeKey([...prefix, indexedTerm(term)], dirs);
  const end = keyPrefixUpperBound(Uint8Array.from(start));
  const v = index.meta.spec['v'];
  return new IndexScanStage({
    index,
    plan: { ranges: [{ start, end }], residual: [] },
    reverse: true,
    dedup: multikey,
    state,
    explain: () => ({
      keyPattern: index.meta.key,
      indexName: index.meta.name,
      isMultiKey: multikey,
      isUnique: false,
      isSparse: false,
      isPartial: index.partialFilter !== undefined,
      indexVersion: new Int32(Number(v?.valueOf() ?? 2)),
      direction: 'backward',
      indexBounds: {},
    }),
  });
}

/** Whether a projection or sort asks for the text score ({$meta: "textScore"} anywhere in it). */
export function asksForTextScore(spec: BsonValue | undefined): boolean {
  if (Array.isArray(spec)) return spec.some(asksForTextScore);
  if (!isPlainDocument(spec)) return false;
  for (const [k, v] of Object.entries(spec)) {
    if (k === '$meta' && v === 'textScore') return true;
    if (asksForTextScore(v)) return true;
  }
  return false;
}

/** A find that projects or sorts by the text score needs a $text filter (40218 otherwise). */
export function requireTextScore(matcher: DocumentFilter | undefined): void {
  const tree = (matcher as { tree?: MatchNode } | undefined)?.tree;
  if (tree === undefined || countKind(tree, 'text') === 0) {
    throw new CommandError(
      ErrorCode.Location40218,
      'query requires text score metadata, but it is not available',
    );
  }
}

/** Whether a filter tree holds a $text. */
export function hasTextSearch(tree: MatchNode): boolean {
  return countKind(tree, 'text') > 0;
}
