// expectEvents, waitForEvent and assertEventCount: matching observed events.

import { type Doc, isDocument, show, withoutRunSpecific } from './bson-values.js';
import {
  type ClientEntity,
  EVENT_KIND_BY_NAME,
  type EventKind,
  type ObservedEvent,
} from './entities.js';
import { MatchError, TestFileError, assertMatch, type EntityLookup } from './match.js';

/** Fields each expected event may assert, by event name. */
const ALLOWED_FIELDS: Record<string, readonly string[]> = {
  commandStartedEvent: [
    'command',
    'commandName',
    'databaseName',
    'hasServiceId',
    'hasServerConnectionId',
  ],
  commandSucceededEvent: [
    'reply',
    'commandName',
    'databaseName',
    'hasServiceId',
    'hasServerConnectionId',
  ],
  commandFailedEvent: ['commandName', 'databaseName', 'hasServiceId', 'hasServerConnectionId'],
  poolClearedEvent: ['hasServiceId', 'interruptInUseConnections'],
  connectionClosedEvent: ['reason', 'hasServiceId'],
  connectionCheckOutFailedEvent: ['reason'],
  serverDescriptionChangedEvent: ['previousDescription', 'newDescription'],
  topologyDescriptionChangedEvent: ['previousDescription', 'newDescription'],
  serverHeartbeatStartedEvent: ['awaited'],
  serverHeartbeatSucceededEvent: ['awaited'],
  serverHeartbeatFailedEvent: ['awaited'],
};

/** Parses `{ <eventName>: { assertions } }`. */
export function parseExpectedEvent(expected: unknown): {
  name: string;
  kind: EventKind;
  assertions: Doc;
} {
  if (!isDocument(expected)) throw new TestFileError('expected event must be a document');
  const keys = Object.keys(expected);
  const name = keys[0];
  if (keys.length !== 1 || name === undefined)
    throw new TestFileError(`expected event must have exactly one key: ${show(expected)}`);
  const kind = EVENT_KIND_BY_NAME.get(name);
  if (kind === undefined) throw new TestFileError(`unknown event type ${name}`);
  const assertions = expected[name];
  if (!isDocument(assertions)) throw new TestFileError(`assertions for ${name} must be a document`);
  const allowed = ALLOWED_FIELDS[name] ?? [];
  for (const k of Object.keys(assertions)) {
    if (!allowed.includes(k)) throw new TestFileError(`unsupported assertion ${k} for ${name}`);
  }
  return { name, kind, assertions };
}

/** Throws MatchError unless the observed event matches the expected one. */
export function matchEvent(
  expected: unknown,
  actual: ObservedEvent,
  entities: EntityLookup,
  path: string,
): void {
  const { name, assertions } = parseExpectedEvent(expected);
  if (actual.name !== name)
    throw new MatchError(path, `expected ${name}, got ${actual.name}${describeEvent(actual)}`);
  const ev = actual.event;
  const sub = (field: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (e instanceof MatchError)
        throw new MatchError(`${path}.${name}.${field}`, `${e.message}${describeEvent(actual)}`);
      throw e;
    }
  };
  for (const [field, want] of Object.entries(assertions)) {
    switch (field) {
      case 'command':
        // The command is the driver's making, not the server's: the Node driver adds fields
        // to nested documents (e.g. writeConcern.wtimeout on commit/abortTransaction), so
        // extra fields are allowed at every level here. Missing and different fields count.
        sub(field, () => assertMatch(want, ev[field], { entities, extraFieldsInNested: true }));
        break;
      case 'reply':
        sub(field, () => assertMatch(want, ev[field], { entities }));
        break;
      case 'commandName':
      case 'databaseName':
      case 'reason':
        if (ev[field] !== want)
          throw new MatchError(
            `${path}.${name}.${field}`,
            `expected ${show(want)}, got ${show(ev[field])}${describeEvent(actual)}`,
          );
        break;
      case 'interruptInUseConnections':
      case 'awaited':
        if (ev[field] !== want)
          throw new MatchError(
            `${path}.${name}.${field}`,
            `expected ${show(want)}, got ${show(ev[field])}`,
          );
        break;
      case 'hasServiceId': {
        const id = ev.serviceId as { toHexString?: () => string } | undefined;
        const has =
          id !== undefined &&
          id !== null &&
          typeof id.toHexString === 'function' &&
          /[^0]/.test(id.toHexString());
        if (has !== want)
          throw new MatchError(
            `${path}.${name}.hasServiceId`,
            `expected ${String(want)}, got ${String(has)}`,
          );
        break;
      }
      case 'hasServerConnectionId': {
        const v = ev.serverConnectionId;
        const has = (typeof v === 'bigint' && v > 0n) || (typeof v === 'number' && v > 0);
        if (has !== want)
          throw new MatchError(
            `${path}.${name}.hasServerConnectionId`,
            `expected ${String(want)}, got ${show(v)}`,
          );
        break;
      }
      case 'previousDescription':
      case 'newDescription': {
        if (!isDocument(want)) throw new TestFileError(`${field} must be a document`);
        const desc = ev[field] as Record<string, unknown> | undefined;
        for (const [k, v] of Object.entries(want)) {
          if (k !== 'type') throw new TestFileError(`unsupported ${field} assertion ${k}`);
          if (desc?.type !== v)
            throw new MatchError(
              `${path}.${name}.${field}.type`,
              `expected ${show(v)}, got ${show(desc?.type)}`,
            );
        }
        break;
      }
      default:
        throw new TestFileError(`unsupported assertion ${field}`);
    }
  }
}

function describeEvent(e: ObservedEvent): string {
  if (e.kind !== 'command') return '';
  let body =
    e.name === 'commandStartedEvent'
      ? e.event.command
      : e.name === 'commandSucceededEvent'
        ? e.event.reply
        : e.event.failure;
  body = withoutRunSpecific(body);
  const shown = body instanceof Error ? body.message : show(body, 300);
  return ` (observed ${e.name} ${String(e.event.commandName)} ${shown})`;
}

function summary(events: readonly ObservedEvent[]): string {
  return events
    .map((e) => (e.kind === 'command' ? `${e.name}(${String(e.event.commandName)})` : e.name))
    .join(', ');
}

/** One expectedEventsForClient object. */
export function checkExpectedEvents(
  spec: unknown,
  client: ClientEntity,
  entities: EntityLookup,
): void {
  if (!isDocument(spec)) throw new TestFileError('expectEvents entry must be a document');
  const kind = (spec.eventType ?? 'command') as EventKind;
  if (kind !== 'command' && kind !== 'cmap' && kind !== 'sdam')
    throw new TestFileError(`unknown eventType ${String(spec.eventType)}`);
  if (!Array.isArray(spec.events)) throw new TestFileError('expectEvents.events must be an array');
  const expected = spec.events;
  for (const e of expected) {
    const parsed = parseExpectedEvent(e);
    if (parsed.kind !== kind) throw new TestFileError(`${parsed.name} is not a ${kind} event`);
  }
  const actual = client.events.filter((e) => e.kind === kind);
  const where = `expectEvents[${client.id}/${kind}]`;
  const ignoreExtra = spec.ignoreExtraEvents === true;
  if (actual.length < expected.length || (!ignoreExtra && actual.length !== expected.length)) {
    throw new MatchError(
      where,
      `expected ${expected.length} event(s) [${expected.map((e) => Object.keys(e as Doc)[0]).join(', ')}], observed ${actual.length} [${summary(actual)}]`,
    );
  }
  expected.forEach((e: unknown, i: number) => {
    const a = actual[i];
    if (a !== undefined) matchEvent(e, a, entities, `${where}[${i}]`);
  });
}

/** Number of observed events on the client that match the expected event. */
export function countMatchingEvents(
  expected: unknown,
  client: ClientEntity,
  entities: EntityLookup,
): number {
  const { name } = parseExpectedEvent(expected);
  let n = 0;
  for (const e of client.events) {
    if (e.name !== name) continue;
    try {
      matchEvent(expected, e, entities, 'event');
      n++;
    } catch (err) {
      if (!(err instanceof MatchError)) throw err;
    }
  }
  return n;
}
