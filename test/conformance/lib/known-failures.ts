// Tests that fail against any server for a reason outside the server: the Node driver does
// something the spec does not expect, or a one-node replica set cannot be what the test needs.
// The official drivers keep such lists in their own runners. Here each entry is still run, and
// its failure must carry the entry's signature (a text of the failure reason) to count as
// known: a test that fails for another reason is a plain failure, and one that passes is
// reported so the entry can go.

import type { TestResult } from './runner.js';

export interface KnownFailure {
  readonly folder: string;
  readonly file: string;
  /** Exact description, or every test of the file when absent. */
  readonly description?: string;
  /** Text the failure reason must contain for the failure to be this one. */
  readonly signature: string;
  /** Why it fails against any server, for the report and docs/conformance.md. */
  readonly reason: string;
}

const GRIDFS_FILTER =
  "driver: the Node driver's GridFS download sends filter {_id: {$eq: id}} where the spec expects {_id: id}";
const BYPASS =
  'driver: the Node driver omits bypassDocumentValidation: false from the commands it sends';
const NULL_ID =
  'driver: the Node driver gives a document with _id: null a new ObjectId before sending it';
const PARTIAL =
  'driver: the Node driver 7.x reports a partialResult for a client.bulkWrite in which no operation succeeded';
const SECONDARY =
  'topology: a client whose URI asks for a secondary read preference cannot select a server on a one-node replica set';

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    folder: 'retryable-reads',
    file: 'gridfs-download.json',
    signature: '.filter._id: type differs',
    reason: GRIDFS_FILTER,
  },
  {
    folder: 'retryable-reads',
    file: 'gridfs-download-serverErrors.json',
    signature: '.filter._id: type differs',
    reason: GRIDFS_FILTER,
  },
  {
    folder: 'crud',
    file: 'bypassDocumentValidation.json',
    signature: '$.bypassDocumentValidation: missing; expected false',
    reason: BYPASS,
  },
  {
    folder: 'crud',
    file: 'create-null-ids.json',
    signature:
      'countDocuments result: $: value differs: expected {"$numberInt":"1"}, got {"$numberInt":"0"}',
    reason: NULL_ID,
  },
  {
    folder: 'crud',
    file: 'client-bulkWrite-partialResults.json',
    signature: 'expectError.expectResult: $.insertedCount: expected no such field',
    reason: PARTIAL,
  },
  {
    folder: 'gridfs',
    file: 'download.json',
    description: 'download when final chunk is missing',
    signature: 'bucket0.download: expected an error, got result',
    reason: "driver: the Node driver's GridFS download stream does not notice missing final chunks",
  },
  {
    folder: 'transactions',
    file: 'client-bulkWrite.json',
    description: 'client bulkWrite with writeConcern in a transaction causes a transaction error',
    signature: 'client0.clientBulkWrite: expected an error, got result',
    reason:
      'driver: the Node driver drops a writeConcern given to client.bulkWrite inside a transaction instead of raising its own error',
  },
  {
    folder: 'transactions',
    file: 'run-command.json',
    description:
      'run command with secondary read preference in client option and primary read preference in transaction options',
    signature: 'createEntities failed: MongoServerSelectionError',
    reason: SECONDARY,
  },
  {
    folder: 'transactions',
    file: 'transaction-options.json',
    description: 'readPreference inherited from client',
    signature: 'createEntities failed: MongoServerSelectionError',
    reason: SECONDARY,
  },
  {
    folder: 'retryable-writes',
    file: 'bulkWrite.json',
    description: 'First insertOne is never committed',
    signature: 'expectError.expectResult: $.insertedIds: unexpected field(s) 0',
    reason:
      "driver: the Node driver's partial BulkWriteResult lists the _id of an insert the server never committed",
  },
  {
    folder: 'client-side-operations-timeout',
    file: 'runCursorCommand.json',
    signature: 'unsupported schemaVersion 1.26',
    reason:
      'driver: a schema 1.26 file of client-side operations timeout tests; the one test not skipped for timeoutMS expects a client-side timeout error, which the Node driver 7.x does not raise',
  },
];

function entryFor(
  r: Pick<TestResult, 'folder' | 'file' | 'description'>,
): KnownFailure | undefined {
  return KNOWN_FAILURES.find(
    (k) =>
      k.folder === r.folder &&
      k.file === r.file &&
      (k.description === undefined || k.description === r.description),
  );
}

/**
 * A failed result whose reason carries its entry's signature becomes `known`, with the entry's
 * reason first and the observed failure after it. Every other result is returned unchanged.
 */
export function classifyKnown(r: TestResult): TestResult {
  if (r.status !== 'failed') return r;
  const k = entryFor(r);
  if (k === undefined || r.reason?.includes(k.signature) !== true) return r;
  return { ...r, status: 'known', reason: `${k.reason} (observed: ${r.reason})` };
}

/**
 * Whether a test listed by its description passed in this run: its entry is stale. (An entry
 * for a whole file covers only the failures with its signature; its other tests may pass.)
 */
export function isKnownButPassing(r: TestResult): boolean {
  return r.status === 'passed' && entryFor(r)?.description !== undefined;
}
