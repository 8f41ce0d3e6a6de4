// compileUpdate: parse an update once, validate every operator and path up front (as mongod's
// UpdateDriver::parse does), and return something that applies it to documents.

import { asDocument, bsonTypeName, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { compileArrayFilters } from './array-filters.js';
import { finishInserted, finishUpdated, unchanged } from './finish.js';
import { formatDocument, formatElement } from '../bson/format.js';
import { modifierTable, renameSourcePlaceholder } from './operators/index.js';
import type { ModifierDefinition, ParseEnv } from './operators/index.js';
import type { Modifier } from './modifier.js';
import {
  arrayFilterIdentifier,
  checkPositional,
  checkUpdatable,
  isArrayFilterPart,
  splitPath,
} from './path.js';
import { ReplacementUpdate } from './replacement.js';
import { ApplyState, isObjectLike, rootLoc } from './state.js';
import { ArrayNode, ObjectNode } from './tree.js';
import type { InternalNode, UpdateNode } from './tree.js';
import type {
  ApplyContext,
  CompileUpdateOptions,
  CompiledUpdate,
  FilterMatcher,
  UpdateResult,
  UpsertContext,
} from './types.js';
import { upsertSeed } from './upsert-seed.js';
import { applyNode } from './walk.js';

interface ParseContext {
  readonly env: ParseEnv;
  readonly arrayFilters: ReadonlyMap<string, FilterMatcher>;
  readonly foundIdentifiers: Set<string>;
}

/** Resolve a `$[<id>]` part to its identifier, checking it is not first and has a filter. */
function identifierOf(part: string, position: number, path: string, ctx: ParseContext): string {
  if (position === 0) {
    fail(
      ErrorCode.BadValue,
      `Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '${path}'`,
    );
  }
  const id = arrayFilterIdentifier(part);
  if (id !== '' && !ctx.arrayFilters.has(id)) {
    fail(ErrorCode.BadValue, `No array filter found for identifier '${id}' in path '${path}'`);
  }
  if (id !== '') ctx.foundIdentifiers.add(id);
  return id;
}

/** Add one modifier path to the tree (UpdateObjectNode::parseAndMerge). Returns whether it is positional. */
function parseAndMerge(
  root: ObjectNode,
  path: string,
  makeLeaf: () => Modifier,
  ctx: ParseContext,
): boolean {
  const parts = splitPath(path);
  checkUpdatable(path, parts);
  const positional = checkPositional(path, parts);
  const leaf: UpdateNode = { kind: 'leaf', modifier: makeLeaf() };
  let current: InternalNode = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    const name = isArrayFilterPart(part) ? identifierOf(part, i, path, ctx) : part;
    const childShouldBeArray = isArrayFilterPart(parts[i + 1] as string);
    let child = current.getChild(name);
    if (child !== undefined) {
      if (child.kind !== (childShouldBeArray ? 'array' : 'object')) {
        fail(
          ErrorCode.ConflictingUpdateOperators,
          `Updating the path '${path}' would create a conflict at '${parts.slice(0, i + 1).join('.')}'`,
        );
      }
    } else {
      child = childShouldBeArray ? new ArrayNode() : new ObjectNode();
      current.setChild(name, child);
    }
    current = child as InternalNode;
  }
  const lastPart = parts[parts.length - 1] as string;
  const lastName = isArrayFilterPart(lastPart)
    ? identifierOf(lastPart, parts.length - 1, path, ctx)
    : lastPart;
  if (current.getChild(lastName) !== undefined) {
    fail(
      ErrorCode.ConflictingUpdateOperators,
      `Updating the path '${path}' would create a conflict at '${path}'`,
    );
  }
  current.setChild(lastName, leaf);
  return positional;
}

function parseModifier(
  root: ObjectNode,
  def: ModifierDefinition,
  field: string,
  value: BsonValue,
  ctx: ParseContext,
): boolean {
  if (def.name !== '$rename')
    return parseAndMerge(root, field, () => def.parse(field, value, ctx.env), ctx);
  // $rename occupies its source path with a placeholder and does its work at the target path.
  parseAndMerge(root, field, () => renameSourcePlaceholder, ctx);
  if (typeof value !== 'string')
    fail(
      ErrorCode.BadValue,
      `The 'to' field for $rename must be a string: ${formatElement(field, value)}`,
    );
  return parseAndMerge(root, value, () => def.parse(field, value, ctx.env), ctx);
}

class OperatorUpdate implements CompiledUpdate {
  readonly type = 'operator';

  constructor(
    private readonly root: ObjectNode,
    readonly needsPositional: boolean,
    private readonly arrayFilters: ReadonlyMap<string, FilterMatcher>,
  ) {}

  apply(doc: BsonDocument, ctx: ApplyContext): UpdateResult {
    const state = new ApplyState(doc, {
      isInsert: ctx.isInsert,
      validateForStorage: !ctx.isInsert,
      matchedField: ctx.positional === undefined ? undefined : String(ctx.positional),
      now: ctx.now,
      nextTimestamp: ctx.nextTimestamp,
      arrayFilters: this.arrayFilters,
    });
    applyNode(this.root, rootLoc, [], [], state);
    return state.modified
      ? finishUpdated(state.root, state.log, ctx.checkSize !== false)
      : unchanged(doc);
  }

  upsert(filter: BsonDocument, ctx: UpsertContext): UpdateResult {
    // mongod builds the new document without storage checks, then checks it as an insert.
    const state = new ApplyState(upsertSeed(filter), {
      isInsert: true,
      validateForStorage: false,
      matchedField: undefined,
      now: ctx.now,
      nextTimestamp: ctx.nextTimestamp,
      arrayFilters: this.arrayFilters,
    });
    applyNode(this.root, rootLoc, [], [], state);
    return finishInserted(state.root, ctx);
  }
}

function compileOperators(
  spec: BsonDocument,
  arrayFilters: ReadonlyMap<string, FilterMatcher>,
  options: CompileUpdateOptions,
): CompiledUpdate {
  const ctx: ParseContext = {
    env: { compileFilter: options.compileFilter, collator: options.collator },
    arrayFilters,
    foundIdentifiers: new Set(),
  };
  const root = new ObjectNode();
  let positional = false;
  for (const name of Object.keys(spec)) {
    const def = modifierTable.get(name);
    if (def === undefined) {
      fail(
        ErrorCode.FailedToParse,
        `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    const arg = spec[name] as BsonValue;
    if (!isObjectLike(arg)) {
      fail(
        ErrorCode.FailedToParse,
        `Modifiers operate on fields but we found type ${bsonTypeName(arg)} instead. For example: {$mod: {<field>: ...}} not {${formatElement(name, arg)}}`,
      );
    }
    const fields = asDocument(arg) ?? {};
    for (const field of Object.keys(fields)) {
      if (parseModifier(root, def, field, fields[field] as BsonValue, ctx)) positional = true;
    }
  }
  for (const id of arrayFilters.keys()) {
    if (!ctx.foundIdentifiers.has(id)) {
      fail(
        ErrorCode.FailedToParse,
        `The array filter for identifier '${id}' was not used in the update ${formatDocument(spec)}`,
      );
    }
  }
  return new OperatorUpdate(root, positional, arrayFilters);
}

/**
 * Parse an update: a replacement document, a document of update operators, or (through
 * options.compilePipeline) an aggregation pipeline. Throws CommandError with mongod's code
 * for anything mongod refuses at parse time.
 */
export function compileUpdate(
  spec: BsonDocument | readonly BsonDocument[],
  options: CompileUpdateOptions = {},
): CompiledUpdate {
  if (Array.isArray(spec)) {
    // mongod parses the array filters first, then refuses them with a pipeline.
    compileArrayFilters(options.arrayFilters, options.compileFilter);
    if ((options.arrayFilters?.length ?? 0) > 0)
      fail(ErrorCode.FailedToParse, 'arrayFilters may not be specified for pipeline-style updates');
    if (options.compilePipeline) return options.compilePipeline(spec);
    fail(ErrorCode.NotImplemented, 'Pipeline-style updates are not supported yet');
  }
  const doc = spec as BsonDocument;
  if (!isPlainDocument(doc))
    fail(ErrorCode.FailedToParse, 'An update must be a document or an array of pipeline stages');
  const arrayFilters = compileArrayFilters(options.arrayFilters, options.compileFilter);
  const keys = Object.keys(doc);
  // mongod's rule: an update whose first field is not '$'-prefixed (or an empty one) is a
  // replacement; '$' fields after the first are then refused as stored field names.
  if (keys.length === 0 || !(keys[0] as string).startsWith('$')) {
    if (options.multi === true)
      fail(ErrorCode.FailedToParse, 'multi update is not supported for replacement-style update');
    return new ReplacementUpdate(doc);
  }
  return compileOperators(doc, arrayFilters, options);
}
