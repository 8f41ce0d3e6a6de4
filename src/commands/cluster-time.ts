// Cluster time a client gossips in: the `$clusterTime` of a request and a read concern's
// `afterClusterTime`. mongod parses and checks them before they may move its clock; so do we,
// because our clock also stamps every write (a forged far-future time would otherwise carry
// every later oplog entry with it).

import { Binary, Timestamp } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../bson/types.js';
import { clusterResource } from '../auth/resource.js';
import { CommandError, ErrorCode, fail } from '../errors.js';
import { limits } from '../limits.js';
import { allowed } from './authorization.js';
import type { ConnectionState, ServerServices } from './context.js';

/** mongod's field-type wording (bsonExtractTypedField) for a wrong or missing field. */
function field(doc: BsonDocument, name: string): BsonValue {
  const v = doc[name];
  if (v === undefined) fail(ErrorCode.NoSuchKey, `Missing expected field "${name}"`);
  return v;
}

function wrongType(name: string, expected: string, v: BsonValue): never {
  fail(
    ErrorCode.TypeMismatch,
    `"${name}" had the wrong type. Expected ${expected}, found ${bsonTypeName(v)}`,
  );
}

interface SignedTime {
  readonly time: Timestamp;
  /** Whether the proof is the all-zero one (what this server signs with, and a forger's). */
  readonly dummyProof: boolean;
}

/** Parses `$clusterTime` as mongod's SignedComponentFormat: {clusterTime, signature?: {hash, keyId}}. */
export function parseSignedClusterTime(value: BsonDocument): SignedTime {
  const time = field(value, 'clusterTime');
  if (!(time instanceof Timestamp)) wrongType('clusterTime', 'timestamp', time);
  // No signature counts as the dummy one, as mongod 8.0 reads it.
  const signature = value['signature'];
  if (signature === undefined) return { time, dummyProof: true };
  if (!isPlainDocument(signature)) wrongType('signature', 'object', signature);
  const hash = field(signature, 'hash');
  if (!(hash instanceof Binary)) wrongType('hash', 'binData', hash);
  if (hash.sub_type !== Binary.SUBTYPE_DEFAULT)
    fail(ErrorCode.UnsupportedFormat, 'SHA1Block only accepts BinDataGeneral type');
  const bytes = hash.buffer.subarray(0, hash.position);
  if (bytes.length !== 20)
    fail(ErrorCode.UnsupportedFormat, `Unsupported SHA1Hash hash length: ${bytes.length}`);
  const keyId = field(signature, 'keyId');
  const n = numericValue(keyId);
  if (n === undefined)
    fail(
      ErrorCode.TypeMismatch,
      `Expected field "keyId" to have numeric type, but found ${bsonTypeName(keyId)}`,
    );
  if (!Number.isInteger(n))
    fail(
      ErrorCode.BadValue,
      `Expected field "keyId" to have a value exactly representable as a 64-bit integer, but found keyId: ${String(n)}`,
    );
  return { time, dummyProof: bytes.every((b) => b === 0) };
}

/**
 * A time may move the clock only if it is not too far ahead of the wall clock nor past the
 * largest timestamp (mongod's VectorClock rate limiter).
 */
function checkAdvance(ts: Timestamp): void {
  const wallSecs = Math.floor(Date.now() / 1000);
  if (ts.t > wallSecs && ts.t - wallSecs > limits.clusterTimeDriftSecsMax) {
    fail(
      ErrorCode.ClusterTimeFailsRateLimiter,
      `New clusterTime, ${ts.t}, is too far from this node's wall clock time, ${wallSecs}.`,
    );
  }
  if (ts.t > 0x7fffffff || ts.i > 0x7fffffff)
    fail(ErrorCode.Location40484, 'clusterTime cannot be advanced beyond its maximum value');
}

/** Whether `a` is later than `b` (seconds, then increment). */
function later(a: Timestamp, b: Timestamp): boolean {
  return a.t > b.t || (a.t === b.t && a.i > b.i);
}

function timeText(ts: Timestamp): string {
  return `{ ts: Timestamp(${ts.t}, ${ts.i}) }`;
}

/**
 * Gossips a request's `$clusterTime` in. A client allowed to advance the clock (any client
 * without access control; with it, one holding `advanceClusterTime`) moves it, within the rate
 * limit. Others must present a time this server already gave out: this server signs with no
 * key, so any later time cannot be verified (KeyNotFound). An unauthenticated client's
 * unsigned time is ignored.
 */
export function gossipClusterTimeIn(
  services: ServerServices,
  connection: ConnectionState,
  value: BsonDocument,
): void {
  const signed = parseSignedClusterTime(value);
  const { clock } = services;
  if (services.config.auth) {
    services.auth.refresh(connection);
    const authenticated =
      connection.auth.user !== undefined || services.auth.localhostBypass(connection);
    if (signed.dummyProof && !authenticated) return;
    if (!allowed(services, connection, clusterResource, 'advanceClusterTime')) {
      if (!later(signed.time, clock.now())) return;
      throw new CommandError(
        ErrorCode.KeyNotFound,
        `No keys found for HMAC that is valid for time: ${timeText(signed.time)} with id: 0`,
      );
    }
  }
  checkAdvance(signed.time);
  clock.advanceTo(signed.time);
}

/**
 * A read concern's `afterClusterTime`: every write this node acknowledged is visible already,
 * so there is nothing to wait for; a time the clock has not reached is refused, as mongod does.
 */
export function checkAfterClusterTime(services: ServerServices, after: Timestamp): void {
  const current = services.clock.now();
  if (later(after, current)) {
    fail(
      ErrorCode.InvalidOptions,
      `readConcern afterClusterTime value must not be greater than the current clusterTime. Requested clusterTime: ${timeText(after)}; current clusterTime: ${timeText(current)}`,
    );
  }
}
