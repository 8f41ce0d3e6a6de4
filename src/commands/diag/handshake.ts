// hello / isMaster: what drivers read to decide what this server is. With a replica-set
// name the server is the writable primary of a one-member set, so that drivers enable
// sessions, transactions, retryable writes and change streams.

import { Double, Int32, Long, ObjectId, calculateObjectSize } from 'bson';
import { getOwn } from '../../bson/document.js';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, uassert } from '../../errors.js';
import { limits } from '../../limits.js';
import { logDocument } from '../../log.js';
import { t } from '../args.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import { negotiateCompression } from './compression.js';
import type { CommandDefinition, Invocation } from '../registry.js';
import { noAuth } from '../authorization.js';
import { saslSupportedMechs, speculativeAuthenticate } from '../auth/sasl.js';
import { interruptedError } from '../operations.js';

/** The replica set's one election: term 1, a fixed electionId. */
export const electionId = new ObjectId('7fffffff0000000000000001');

const helloArgs = {
  helloOk: t.any,
  client: t.document,
  compression: t.array,
  saslSupportedMechs: t.string,
  speculativeAuthenticate: t.document,
  loadBalanced: t.bool,
  topologyVersion: t.any,
  maxAwaitTimeMS: t.any,
  hostInfo: t.string,
  forShell: t.any,
};

function replicaSetFields(services: ServerServices): BsonDocument {
  const { replSet, advertisedHost } = services.config;
  if (replSet === '') return {};
  const opTime = { ts: services.clock.now(), t: Long.fromInt(1) };
  const date = new Date();
  return {
    hosts: [advertisedHost],
    setName: replSet,
    setVersion: new Int32(1),
    secondary: false,
    primary: advertisedHost,
    me: advertisedHost,
    electionId,
    lastWrite: { opTime, lastWriteDate: date, majorityOpTime: opTime, majorityWriteDate: date },
  };
}

/** The hello fields of an awaitable request, validated as mongod does. */
interface AwaitRequest {
  readonly processId: ObjectId;
  readonly counter: number;
  readonly maxAwaitTimeMS: number;
}

function awaitRequest(args: Invocation<typeof helloArgs>['args']): AwaitRequest | undefined {
  const tv = args.topologyVersion;
  const wait = args.maxAwaitTimeMS;
  if (tv === undefined || wait === undefined) {
    if (tv === undefined && wait === undefined) return undefined;
    throw new CommandError(
      ErrorCode.Location31368,
      tv !== undefined
        ? "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'"
        : "A request with 'maxAwaitTimeMS' must include a 'topologyVersion'",
    );
  }
  if (!isPlainDocument(tv)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'topologyVersion' is the wrong type, expected type 'object'",
    );
  }
  const processId = getOwn(tv, 'processId');
  const counter = numericValue(getOwn(tv, 'counter'));
  if (!(processId instanceof ObjectId) || counter === undefined) {
    throw new CommandError(
      ErrorCode.Location40414,
      !(processId instanceof ObjectId)
        ? "BSON field 'TopologyVersion.processId' is missing but a required field"
        : "BSON field 'TopologyVersion.counter' is missing but a required field",
    );
  }
  const ms = numericValue(wait);
  if (ms === undefined || !Number.isInteger(ms)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'maxAwaitTimeMS' is the wrong type, expected types '[long, int, decimal, double]'",
    );
  }
  uassert(
    counter >= 0,
    ErrorCode.Location31372,
    'topologyVersion must have a non-negative counter',
  );
  uassert(ms >= 0, ErrorCode.Location31373, 'maxAwaitTimeMS must be a non-negative integer');
  return { processId, counter, maxAwaitTimeMS: ms };
}

/**
 * The awaitable hello: with the server's own processId and counter, the reply waits until the
 * topology changes or maxAwaitTimeMS passes; a stale or foreign topologyVersion answers now.
 */
async function awaitTopologyChange(
  inv: Invocation<typeof helloArgs>,
  req: AwaitRequest,
): Promise<void> {
  const { topology, config } = inv.services;
  if (!req.processId.equals(topology.processId)) return;
  const ours = topology.currentCounter;
  if (config.replSet === '') {
    // A standalone's topology never changes while it runs: only the current counter may wait.
    uassert(
      req.counter === ours,
      ErrorCode.Location51764,
      `Received a topology version with counter: ${req.counter} which is greater than the server topology version counter: ${ours}`,
    );
  } else {
    uassert(
      req.counter <= ours,
      ErrorCode.Location31382,
      `Received a topology version with counter: ${req.counter} which is greater than the server topology version counter: ${ours}`,
    );
    if (req.counter < ours) return;
  }
  // The wait ends with the client's connection too (OperationRegistry.clientClosed).
  await topology.waitForChange(ours, req.maxAwaitTimeMS, inv.op.signal);
  if (inv.op.signal.aborted) throw interruptedError();
}

/** A string field of a client metadata sub-document: TypeMismatch if not a string, false if absent. */
function metadataString(doc: BsonDocument, section: string, name: string): boolean {
  const v = doc[name];
  if (v === undefined) return false;
  uassert(
    typeof v === 'string',
    ErrorCode.TypeMismatch,
    `The '${section}.${name}' field must be a string in the client metadata document`,
  );
  return true;
}

function metadataSection(doc: BsonDocument, name: string): BsonDocument {
  const v = doc[name];
  uassert(
    isPlainDocument(v),
    ErrorCode.TypeMismatch,
    `The '${name}' field is required to be a BSON document in the client metadata document`,
  );
  return v;
}

function requireMetadataField(present: boolean, what: string): void {
  uassert(
    present,
    ErrorCode.ClientMetadataMissingField,
    `Missing required ${what} in the client metadata document`,
  );
}

/**
 * The handshake's `client` document, checked as mongod's ClientMetadata::parse: at most 1 KiB,
 * `driver.name`, `driver.version` and `os.type` strings required, `application.name` a string
 * of at most 128 bytes; other fields are free.
 */
function checkClientMetadata(doc: BsonDocument): void {
  uassert(
    calculateObjectSize(doc) <= limits.clientMetadataBytesMax,
    ErrorCode.ClientMetadataDocumentTooLarge,
    `The client metadata document must be less then or equal to ${limits.clientMetadataBytesMax}bytes`,
  );
  // In document order, as mongod reports the first problem it meets.
  for (const name of Object.keys(doc)) {
    if (name !== 'application' && name !== 'driver' && name !== 'os') continue;
    const section = metadataSection(doc, name);
    if (name === 'application') {
      if (metadataString(section, name, 'name'))
        uassert(
          Buffer.byteLength(section['name'] as string) <= limits.clientAppNameBytesMax,
          ErrorCode.ClientMetadataAppNameTooLarge,
          `The 'application.name' field must be less then or equal to ${limits.clientAppNameBytesMax} bytes in the client metadata document`,
        );
    } else if (name === 'driver') {
      requireMetadataField(metadataString(section, name, 'name'), "field 'driver.name'");
      requireMetadataField(metadataString(section, name, 'version'), "field 'driver.version'");
    } else {
      requireMetadataField(metadataString(section, name, 'type'), "field 'os.type'");
    }
  }
  requireMetadataField(doc['driver'] !== undefined, "sub-document 'driver'");
  requireMetadataField(doc['os'] !== undefined, "sub-document 'os'");
}

async function runHello(
  inv: Invocation<typeof helloArgs>,
  legacyName: boolean,
): Promise<BsonDocument> {
  const { services, connection, args } = inv;
  const awaitable = awaitRequest(args);
  if (args.client !== undefined) {
    if (
      connection.clientMetadata !== undefined &&
      inv.name !== 'hello' &&
      inv.name !== 'isMaster' &&
      inv.name !== 'ismaster'
    ) {
      throw new CommandError(
        ErrorCode.ClientMetadataCannotBeMutated,
        'The client metadata document may only be sent in the first hello',
      );
    }
    if (connection.clientMetadata === undefined) {
      checkClientMetadata(args.client);
      connection.clientMetadata = args.client;
      const app = args.client['application'];
      if (isPlainDocument(app) && typeof app['name'] === 'string') connection.appName = app['name'];
      const log = services.logger;
      if (!log.settings.quiet)
        log.child(`conn${connection.id}`).info('NETWORK', 51800, 'client metadata', {
          remote: connection.remote,
          client: `conn${connection.id}`,
          negotiatedCompressors: [],
          doc: logDocument(args.client),
        });
    }
  }
  if (awaitable !== undefined) await awaitTopologyChange(inv, awaitable);
  const reply: BsonDocument = {};
  if (args.helloOk !== undefined) reply['helloOk'] = true;
  reply['topologyVersion'] = { ...services.topology.version };
  // False while a replSetStepDown attempt waits (mongod's fillHelloForReplSet: primary and not
  // stepping down); the topologyVersion does not move for it, as the member state does not.
  reply[legacyName ? 'ismaster' : 'isWritablePrimary'] = !services.topology.steppingDown;
  Object.assign(reply, replicaSetFields(services));
  Object.assign(reply, {
    maxBsonObjectSize: new Int32(limits.bsonObjectSizeMax),
    maxMessageSizeBytes: new Int32(limits.messageSizeBytesMax),
    maxWriteBatchSize: new Int32(limits.writeBatchSizeMax),
    localTime: new Date(),
    logicalSessionTimeoutMinutes: new Int32(limits.logicalSessionTimeoutMinutes),
    connectionId: new Int32(connection.id),
    minWireVersion: new Int32(0),
    maxWireVersion: new Int32(services.config.reported.maxWireVersion),
    readOnly: false,
  });
  negotiateCompression(
    services.config.networkMessageCompressors,
    connection,
    args.compression,
    reply,
  );
  if (args.saslSupportedMechs !== undefined) {
    const mechs = saslSupportedMechs(services, args.saslSupportedMechs);
    if (mechs !== undefined) reply['saslSupportedMechs'] = mechs;
  }
  if (args.speculativeAuthenticate !== undefined) {
    const spec = speculativeAuthenticate(services, connection, args.speculativeAuthenticate);
    if (spec !== undefined) reply['speculativeAuthenticate'] = spec;
  }
  reply['ok'] = new Double(1);
  return reply;
}

export const hello = defineCommand({
  name: 'hello',
  auth: noAuth,
  args: helloArgs,
  strict: false,
  traits: { apiVersion1: true },
  run: (inv) => runHello(inv, false),
});

export const isMaster = defineCommand({
  name: 'isMaster',
  auth: noAuth,
  aliases: ['ismaster'],
  args: helloArgs,
  strict: false,
  run: (inv) => runHello(inv, true),
});

export const handshakeCommands: CommandDefinition[] = [hello, isMaster] as CommandDefinition[];
