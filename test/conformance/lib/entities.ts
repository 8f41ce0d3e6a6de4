// The entity map of one test: clients (with their observed events), databases, collections,
// sessions, GridFS buckets, cursors, change streams, saved results and event lists.

import type { ChangeStream, ClientSession, Collection, Db } from 'mongodb';
import {
  GridFSBucket,
  MongoClient,
  type MongoClientOptions,
  type AbstractCursor,
  type ClientSessionOptions,
  type ServerApi,
} from 'mongodb';
import { type Doc, isDocument, toJsNumber, show } from './bson-values.js';
import { readConcernOf, readPreferenceOf, writeConcernOf } from './args.js';
import { TestFileError, type EntityLookup } from './match.js';

// ---------------------------------------------------------------------------------------------
// Events

export type EventKind = 'command' | 'cmap' | 'sdam';

export interface ObservedEvent {
  readonly kind: EventKind;
  /** The spec's name, e.g. `commandStartedEvent`. */
  readonly name: string;
  readonly event: Record<string, unknown>;
  /** Seconds since the epoch, for storeEventsAsEntities. */
  readonly observedAt: number;
}

/** Driver event name → [kind, spec name of the expected event, spec name for event lists]. */
const DRIVER_EVENTS: ReadonlyArray<readonly [string, EventKind, string, string]> = [
  ['commandStarted', 'command', 'commandStartedEvent', 'CommandStartedEvent'],
  ['commandSucceeded', 'command', 'commandSucceededEvent', 'CommandSucceededEvent'],
  ['commandFailed', 'command', 'commandFailedEvent', 'CommandFailedEvent'],
  ['connectionPoolCreated', 'cmap', 'poolCreatedEvent', 'PoolCreatedEvent'],
  ['connectionPoolReady', 'cmap', 'poolReadyEvent', 'PoolReadyEvent'],
  ['connectionPoolCleared', 'cmap', 'poolClearedEvent', 'PoolClearedEvent'],
  ['connectionPoolClosed', 'cmap', 'poolClosedEvent', 'PoolClosedEvent'],
  ['connectionCreated', 'cmap', 'connectionCreatedEvent', 'ConnectionCreatedEvent'],
  ['connectionReady', 'cmap', 'connectionReadyEvent', 'ConnectionReadyEvent'],
  ['connectionClosed', 'cmap', 'connectionClosedEvent', 'ConnectionClosedEvent'],
  [
    'connectionCheckOutStarted',
    'cmap',
    'connectionCheckOutStartedEvent',
    'ConnectionCheckOutStartedEvent',
  ],
  [
    'connectionCheckOutFailed',
    'cmap',
    'connectionCheckOutFailedEvent',
    'ConnectionCheckOutFailedEvent',
  ],
  ['connectionCheckedOut', 'cmap', 'connectionCheckedOutEvent', 'ConnectionCheckedOutEvent'],
  ['connectionCheckedIn', 'cmap', 'connectionCheckedInEvent', 'ConnectionCheckedInEvent'],
  [
    'serverDescriptionChanged',
    'sdam',
    'serverDescriptionChangedEvent',
    'ServerDescriptionChangedEvent',
  ],
  ['serverHeartbeatStarted', 'sdam', 'serverHeartbeatStartedEvent', 'ServerHeartbeatStartedEvent'],
  [
    'serverHeartbeatSucceeded',
    'sdam',
    'serverHeartbeatSucceededEvent',
    'ServerHeartbeatSucceededEvent',
  ],
  ['serverHeartbeatFailed', 'sdam', 'serverHeartbeatFailedEvent', 'ServerHeartbeatFailedEvent'],
  [
    'topologyDescriptionChanged',
    'sdam',
    'topologyDescriptionChangedEvent',
    'TopologyDescriptionChangedEvent',
  ],
  ['serverOpening', 'sdam', 'serverOpeningEvent', 'ServerOpeningEvent'],
  ['serverClosed', 'sdam', 'serverClosedEvent', 'ServerClosedEvent'],
  ['topologyOpening', 'sdam', 'topologyOpeningEvent', 'TopologyOpeningEvent'],
  ['topologyClosed', 'sdam', 'topologyClosedEvent', 'TopologyClosedEvent'],
];

export const EVENT_KIND_BY_NAME = new Map(DRIVER_EVENTS.map(([, kind, name]) => [name, kind]));

/** Commands whose events are dropped unless observeSensitiveCommands (Command Monitoring spec). */
const SENSITIVE_COMMANDS = new Set([
  'authenticate',
  'saslstart',
  'saslcontinue',
  'getnonce',
  'createuser',
  'updateuser',
  'copydbgetnonce',
  'copydbsaslstart',
  'copydb',
]);
const HELLO_COMMANDS = new Set(['hello', 'ismaster']);

export class ClientEntity {
  readonly events: ObservedEvent[] = [];
  /** Connections currently checked out, from CMAP events (assertNumberConnectionsCheckedOut). */
  checkedOut = 0;
  /** Events are recorded only while the test's operations run. */
  listening = true;
  closed = false;
  private readonly sensitiveRequests = new Set<unknown>();

  constructor(
    readonly id: string,
    readonly client: MongoClient,
    private readonly observe: ReadonlySet<string>,
    private readonly ignoreCommands: ReadonlySet<string>,
    private readonly observeSensitive: boolean,
    private readonly eventLists: ReadonlyArray<{
      readonly names: ReadonlySet<string>;
      readonly list: Doc[];
    }>,
  ) {
    for (const [driverName, kind, name, listName] of DRIVER_EVENTS) {
      client.on(driverName as 'commandStarted', (ev: unknown) =>
        this.onEvent(kind, name, listName, ev as Record<string, unknown>),
      );
    }
  }

  /** Whether an event type is among this client's observeEvents. */
  observes(name: string): boolean {
    return this.observe.has(name);
  }

  private onEvent(
    kind: EventKind,
    name: string,
    listName: string,
    ev: Record<string, unknown>,
  ): void {
    if (name === 'connectionCheckedOutEvent') this.checkedOut++;
    if (name === 'connectionCheckedInEvent') this.checkedOut--;
    const observedAt = Date.now() / 1000;
    for (const { names, list } of this.eventLists) {
      if (names.has(listName)) list.push(serializeEvent(listName, ev, observedAt));
    }
    if (!this.listening || !this.observe.has(name)) return;
    if (kind === 'command' && this.ignoredCommandEvent(name, ev)) return;
    this.events.push({ kind, name, event: ev, observedAt });
  }

  private ignoredCommandEvent(name: string, ev: Record<string, unknown>): boolean {
    const commandName = String(ev.commandName ?? '');
    if (commandName === 'configureFailPoint') return true;
    if (this.ignoreCommands.has(commandName)) return true;
    if (this.observeSensitive) return false;
    if (name === 'commandStartedEvent') {
      const lower = commandName.toLowerCase();
      const command = ev.command;
      const redactedHello =
        HELLO_COMMANDS.has(lower) && isDocument(command) && Object.keys(command).length === 0;
      if (SENSITIVE_COMMANDS.has(lower) || redactedHello) {
        this.sensitiveRequests.add(ev.requestId);
        return true;
      }
      return false;
    }
    return this.sensitiveRequests.has(ev.requestId);
  }

  commandStartedEvents(): Record<string, unknown>[] {
    return this.events.filter((e) => e.name === 'commandStartedEvent').map((e) => e.event);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Events of a close operation (endSessions, killCursors) are the test's to observe.
    await this.client.close();
  }
}

function serializeEvent(name: string, ev: Record<string, unknown>, observedAt: number): Doc {
  const doc: Doc = { name, observedAt };
  for (const [k, v] of Object.entries(ev)) {
    if (v === undefined || typeof v === 'function') continue;
    if (k === 'failure') doc.failure = v instanceof Error ? v.message : String(v);
    else if (typeof v === 'bigint') doc[k] = Number(v);
    else if (k === 'command' || k === 'reply' || typeof v !== 'object' || v === null) doc[k] = v;
  }
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Entity map

export type Entity =
  | { kind: 'client'; value: ClientEntity }
  | { kind: 'database'; value: Db }
  | { kind: 'collection'; value: Collection }
  | { kind: 'session'; value: ClientSession; lsid: unknown; client: ClientEntity }
  | { kind: 'bucket'; value: GridFSBucket }
  | { kind: 'changeStream'; value: ChangeStream }
  | { kind: 'cursor'; value: AbstractCursor }
  | { kind: 'eventList'; value: Doc[] }
  | { kind: 'thread'; value: ThreadEntity }
  | { kind: 'bson'; value: unknown };

export type EntityKind = Entity['kind'];
type ValueOf<K extends EntityKind> = Extract<Entity, { kind: K }>['value'];

/** A test runner "thread": operations queued on it run one after another, concurrently with the test. */
export class ThreadEntity {
  private tail: Promise<void> = Promise.resolve();
  private errors: unknown[] = [];
  schedule(work: () => Promise<void>): void {
    this.tail = this.tail.then(work).catch((e: unknown) => {
      this.errors.push(e);
    });
  }
  async join(): Promise<unknown[]> {
    await this.tail;
    return this.errors;
  }
}

export interface ClientDefaults {
  uri: string;
  /** Options every client entity gets unless its uriOptions say otherwise. */
  baseOptions: MongoClientOptions;
}

export class EntityMap implements EntityLookup {
  private readonly map = new Map<string, Entity>();

  has(id: string): boolean {
    return this.map.has(id);
  }

  set(id: string, entity: Entity): void {
    if (this.map.has(id)) throw new TestFileError(`entity ${id} already exists`);
    this.map.set(id, entity);
  }

  get(id: unknown): Entity {
    if (typeof id !== 'string')
      throw new TestFileError(`entity name must be a string, got ${show(id)}`);
    const e = this.map.get(id);
    if (e === undefined) throw new TestFileError(`no entity named ${id}`);
    return e;
  }

  getAs<K extends EntityKind>(id: unknown, kind: K): ValueOf<K> {
    const e = this.get(id);
    if (e.kind !== kind)
      throw new TestFileError(`entity ${String(id)} is a ${e.kind}, expected a ${kind}`);
    return e.value as ValueOf<K>;
  }

  session(id: unknown): Extract<Entity, { kind: 'session' }> {
    const e = this.get(id);
    if (e.kind !== 'session')
      throw new TestFileError(`entity ${String(id)} is a ${e.kind}, expected a session`);
    return e;
  }

  entries(): IterableIterator<[string, Entity]> {
    return this.map.entries();
  }

  // EntityLookup
  entityValue(name: string): unknown {
    const e = this.get(name);
    if (e.kind !== 'bson')
      throw new TestFileError(`entity ${name} is a ${e.kind}, not a BSON value`);
    return e.value;
  }

  sessionLsid(name: string): unknown {
    return this.session(name).lsid;
  }

  /** Creates the entities of a createEntities list, in order. */
  async create(list: unknown, defaults: ClientDefaults): Promise<void> {
    if (!Array.isArray(list)) throw new TestFileError('createEntities must be an array');
    for (const item of list) {
      if (!isDocument(item)) throw new TestFileError('entity must be a document');
      const keys = Object.keys(item);
      const kind = keys[0];
      const spec = kind === undefined ? undefined : item[kind];
      if (
        keys.length !== 1 ||
        kind === undefined ||
        !isDocument(spec) ||
        typeof spec.id !== 'string'
      ) {
        throw new TestFileError(`malformed entity ${show(item)}`);
      }
      if (this.map.has(spec.id)) throw new TestFileError(`entity ${spec.id} already exists`);
      await this.createOne(kind, spec, defaults);
    }
  }

  private async createOne(kind: string, spec: Doc, defaults: ClientDefaults): Promise<void> {
    const id = spec.id as string;
    switch (kind) {
      case 'client': {
        const entity = await createClient(spec, defaults, this);
        this.set(id, { kind: 'client', value: entity });
        return;
      }
      case 'database': {
        known(spec, ['id', 'client', 'databaseName', 'databaseOptions'], 'database');
        const client = this.getAs(spec.client, 'client');
        if (typeof spec.databaseName !== 'string')
          throw new TestFileError('database.databaseName must be a string');
        this.set(id, {
          kind: 'database',
          value: client.client.db(spec.databaseName, collectionOrDbOptions(spec.databaseOptions)),
        });
        return;
      }
      case 'collection': {
        known(spec, ['id', 'database', 'collectionName', 'collectionOptions'], 'collection');
        const db = this.getAs(spec.database, 'database');
        if (typeof spec.collectionName !== 'string')
          throw new TestFileError('collection.collectionName must be a string');
        this.set(id, {
          kind: 'collection',
          value: db.collection(spec.collectionName, collectionOrDbOptions(spec.collectionOptions)),
        });
        return;
      }
      case 'session': {
        known(spec, ['id', 'client', 'sessionOptions'], 'session');
        const client = this.getAs(spec.client, 'client');
        const { options, snapshotTime } = sessionOptions(spec.sessionOptions, this);
        const session = client.client.startSession(options);
        if (snapshotTime !== undefined) {
          // The Node driver has no snapshotTime session option; it keeps the value in this
          // field and sends it as readConcern.atClusterTime, which is what the option means.
          (session as unknown as { snapshotTime: unknown }).snapshotTime = snapshotTime;
        }
        this.set(id, { kind: 'session', value: session, lsid: session.id, client });
        return;
      }
      case 'bucket': {
        known(spec, ['id', 'database', 'bucketOptions'], 'bucket');
        const db = this.getAs(spec.database, 'database');
        const opts = isDocument(spec.bucketOptions) ? bucketOptions(spec.bucketOptions) : {};
        this.set(id, { kind: 'bucket', value: new GridFSBucket(db, opts) });
        return;
      }
      case 'thread':
        known(spec, ['id'], 'thread');
        this.set(id, { kind: 'thread', value: new ThreadEntity() });
        return;
      case 'clientEncryption':
        throw new UnsupportedError(
          'clientEncryption entities (CSFLE) are not supported by this runner',
        );
      default:
        throw new TestFileError(`unknown entity type ${kind}`);
    }
  }
}

/** The runner does not support something the test needs: the test fails, it is not skipped. */
export class UnsupportedError extends Error {
  override name = 'UnsupportedError';
}

function known(spec: Doc, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(spec)) {
    if (!allowed.includes(k)) throw new UnsupportedError(`unsupported ${what} entity field ${k}`);
  }
}

function collectionOrDbOptions(v: unknown): Doc {
  if (v === undefined) return {};
  if (!isDocument(v)) throw new TestFileError('collection/database options must be a document');
  const out: Doc = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === 'readConcern') out.readConcern = readConcernOf(val);
    else if (k === 'writeConcern') out.writeConcern = writeConcernOf(val);
    else if (k === 'readPreference') out.readPreference = readPreferenceOf(val);
    else if (k === 'timeoutMS') out.timeoutMS = toJsNumber(val);
    else throw new UnsupportedError(`unsupported collection/database option ${k}`);
  }
  return out;
}

function bucketOptions(v: Doc): Doc {
  const out: Doc = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === 'readConcern') out.readConcern = readConcernOf(val);
    else if (k === 'writeConcern') out.writeConcern = writeConcernOf(val);
    else if (k === 'readPreference') out.readPreference = readPreferenceOf(val);
    else if (k === 'bucketName' || k === 'chunkSizeBytes' || k === 'disableMD5')
      out[k] = toJsNumber(val);
    else throw new UnsupportedError(`unsupported bucket option ${k}`);
  }
  return out;
}

function sessionOptions(
  v: unknown,
  entities: EntityMap,
): { options: ClientSessionOptions; snapshotTime?: unknown } {
  if (v === undefined) return { options: {} };
  if (!isDocument(v)) throw new TestFileError('sessionOptions must be a document');
  const options: ClientSessionOptions = {};
  let snapshotTime: unknown;
  for (const [k, val] of Object.entries(v)) {
    if (k === 'causalConsistency' || k === 'snapshot') options[k] = val as boolean;
    else if (k === 'defaultTimeoutMS') options.defaultTimeoutMS = toJsNumber(val) as number;
    else if (k === 'snapshotTime')
      snapshotTime = typeof val === 'string' ? entities.entityValue(val) : val;
    else if (k === 'defaultTransactionOptions')
      options.defaultTransactionOptions = transactionOptions(val);
    else throw new UnsupportedError(`unsupported session option ${k}`);
  }
  return snapshotTime === undefined ? { options } : { options, snapshotTime };
}

export function transactionOptions(
  v: unknown,
): NonNullable<ClientSessionOptions['defaultTransactionOptions']> {
  if (v === undefined) return {};
  if (!isDocument(v)) throw new TestFileError('transaction options must be a document');
  const out: NonNullable<ClientSessionOptions['defaultTransactionOptions']> = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === 'readConcern') out.readConcern = readConcernOf(val);
    else if (k === 'writeConcern') out.writeConcern = writeConcernOf(val);
    else if (k === 'readPreference') out.readPreference = readPreferenceOf(val);
    else if (k === 'maxCommitTimeMS') out.maxCommitTimeMS = toJsNumber(val) as number;
    else throw new UnsupportedError(`unsupported transaction option ${k}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Clients

const CLIENT_FIELDS = [
  'id',
  'uriOptions',
  'useMultipleMongoses',
  'observeEvents',
  'ignoreCommandMonitoringEvents',
  'observeSensitiveCommands',
  'storeEventsAsEntities',
  'serverApi',
  'observeLogMessages',
];

/** Builds the connection string for a client entity: the suite's URI plus uriOptions. */
export function clientUri(base: string, uriOptions: Doc): string {
  const q = base.indexOf('?');
  const head = q < 0 ? base : base.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : base.slice(q + 1));
  for (const [k, raw] of Object.entries(uriOptions)) {
    const v = toJsNumber(raw);
    for (const existing of [...params.keys()])
      if (existing.toLowerCase() === k.toLowerCase()) params.delete(existing);
    if (k === 'readPreferenceTags' && Array.isArray(v)) {
      for (const tagSet of v) params.append(k, String(tagSet));
    } else if (isDocument(v)) {
      params.set(
        k,
        Object.entries(v)
          .map(([a, b]) => `${a}:${String(toJsNumber(b))}`)
          .join(','),
      );
    } else {
      params.set(k, String(v));
    }
  }
  if (uriOptions.directConnection === true) params.delete('replicaSet');
  // A path is needed before the query string when the base URI has none.
  const sep = head.endsWith('/') || /^mongodb(\+srv)?:\/\/[^/]*\/./.test(head) ? '' : '/';
  const query = params.toString();
  return query === '' ? head : `${head}${sep}?${query}`;
}

async function createClient(
  spec: Doc,
  defaults: ClientDefaults,
  entities: EntityMap,
): Promise<ClientEntity> {
  for (const k of Object.keys(spec)) {
    if (!CLIENT_FIELDS.includes(k))
      throw new UnsupportedError(`unsupported client entity field ${k}`);
  }
  if (spec.observeLogMessages !== undefined)
    throw new UnsupportedError('observeLogMessages is not supported by this runner');
  const uriOptions = spec.uriOptions === undefined ? {} : spec.uriOptions;
  if (!isDocument(uriOptions)) throw new TestFileError('uriOptions must be a document');
  for (const v of Object.values(uriOptions)) {
    if (isDocument(v) && '$$placeholder' in v)
      throw new UnsupportedError('$$placeholder uriOptions are not supported');
  }
  // __skipPingOnConnect: connect() discovers the server without checking a connection out of
  // the pool, so pool events and checked-out counts start at the test's first operation.
  const options = {
    ...defaults.baseOptions,
    monitorCommands: true,
    __skipPingOnConnect: true,
  } as MongoClientOptions;
  // uriOptions win over the runner's defaults.
  for (const k of Object.keys(uriOptions)) delete (options as Record<string, unknown>)[k];
  if (spec.serverApi !== undefined) {
    if (!isDocument(spec.serverApi)) throw new TestFileError('serverApi must be a document');
    options.serverApi = { ...spec.serverApi } as unknown as ServerApi;
  }
  const observe = new Set(stringList(spec.observeEvents, 'observeEvents'));
  for (const name of observe) {
    if (!EVENT_KIND_BY_NAME.has(name))
      throw new UnsupportedError(`unsupported observeEvents type ${name}`);
  }
  const eventLists: { names: Set<string>; list: Doc[] }[] = [];
  if (spec.storeEventsAsEntities !== undefined) {
    if (!Array.isArray(spec.storeEventsAsEntities))
      throw new TestFileError('storeEventsAsEntities must be an array');
    for (const s of spec.storeEventsAsEntities) {
      if (!isDocument(s) || typeof s.id !== 'string')
        throw new TestFileError('malformed storeEventsAsEntities entry');
      const list: Doc[] = [];
      entities.set(s.id, { kind: 'eventList', value: list });
      eventLists.push({
        names: new Set(stringList(s.events, 'storeEventsAsEntities.events')),
        list,
      });
    }
  }
  const client = new MongoClient(clientUri(defaults.uri, uriOptions), options);
  const entity = new ClientEntity(
    spec.id as string,
    client,
    observe,
    new Set(stringList(spec.ignoreCommandMonitoringEvents, 'ignoreCommandMonitoringEvents')),
    spec.observeSensitiveCommands === true,
    eventLists,
  );
  try {
    await client.connect();
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  return entity;
}

function stringList(v: unknown, what: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new TestFileError(`${what} must be an array of strings`);
  return v as string[];
}
