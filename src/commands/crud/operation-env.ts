// What a CRUD command's expressions and writes run with: its collation (or the collection's
// default), $$CLUSTER_TIME, server-side scripting, and the storage write with the operation's
// write concern.

import type { Timestamp } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { parseCollation } from '../../bson/collation.js';
import type { Collator } from '../../bson/collation.js';
import type { Collection } from '../../catalog/collection.js';
import type { WriteTxn } from '../../storage/engine.js';
import { scriptHost } from '../../js/engine.js';
import type { ScriptHost } from '../../js/engine.js';
import type { OperationContext, ServerServices } from '../context.js';
import { writeConcernError } from '../write-concern.js';

/**
 * Run `fn` in one storage write transaction and wait as the write concern asks. Returns
 * the callback's result and the writeConcernError to report, if any.
 */
export async function writeWithConcern<T>(
  services: ServerServices,
  op: OperationContext,
  fn: (txn: WriteTxn) => T,
): Promise<{ result: T; wcError: BsonDocument | undefined }> {
  const result = await op.access.write(fn);
  return { result, wcError: writeConcernError(op.writeConcern, services.config.replSet) };
}

/** $$CLUSTER_TIME for expressions: the cluster time of a replica set member; a standalone has none. */
export function clusterTimeOf(services: ServerServices): Timestamp | undefined {
  return services.config.replSet === '' ? undefined : services.clock.now();
}

/** The command's server-side JavaScript ($where, $function, ...); undefined when scripting is off. */
export function scriptingOf(
  services: ServerServices,
  op: OperationContext,
): ScriptHost | undefined {
  return scriptHost(services.scriptEngine, op);
}

/**
 * The collation an operation runs with: its own `collation` (checked as mongod does; {locale:
 * "simple"} is binary comparison), else the collection's default. Undefined means simple.
 */
export function resolveCollation(
  coll: Collection | undefined,
  collation: BsonDocument | undefined,
): Collator | undefined {
  if (collation !== undefined) return parseCollation(collation);
  return collectionCollation(coll);
}

const defaultCollators = new WeakMap<BsonDocument, Collator>();

/** A collection's default collation (create's `collation`), parsed once per stored spec. */
export function collectionCollation(coll: Collection | undefined): Collator | undefined {
  const spec = coll?.meta.options['collation'];
  if (!isPlainDocument(spec)) return undefined;
  let collator = defaultCollators.get(spec);
  if (collator === undefined) {
    collator = parseCollation(spec);
    if (collator === undefined) return undefined;
    defaultCollators.set(spec, collator);
  }
  return collator;
}
