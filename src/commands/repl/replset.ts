// Replica-set introspection for the one-member set this server presents:
// replSetGetStatus and replSetGetConfig, in mongod's shape; replSetStepDown and replSetFreeze
// answered as the primary of a one-member set answers them.

import { Double, Int32, Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { electionId } from '../diag/handshake.js';
import { t } from '../args.js';
import { numericValue } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { onCluster } from '../authorization.js';
import { interruptibleSleep } from '../operations.js';

function requireReplSet(services: ServerServices): string {
  const name = services.config.replSet;
  if (name === '')
    throw new CommandError(ErrorCode.NoReplicationEnabled, 'not running with --replSet');
  return name;
}

export const replSetGetStatus = defineCommand({
  name: 'replSetGetStatus',
  auth: onCluster('replSetGetStatus'),
  args: { initialSync: t.ignored },
  traits: { adminOnly: true },
  run: ({ services }) => {
    const set = requireReplSet(services);
    const ts = services.clock.now();
    const opTime = { ts, t: Long.fromInt(1) };
    const now = new Date();
    const uptime = Math.floor((Date.now() - services.startedAtMs) / 1000);
    const member: BsonDocument = {
      _id: new Int32(0),
      name: services.config.advertisedHost,
      health: new Double(1),
      state: new Int32(1),
      stateStr: 'PRIMARY',
      uptime: new Int32(uptime),
      optime: opTime,
      optimeDate: new Date(ts.t * 1000),
      lastAppliedWallTime: now,
      lastDurableWallTime: now,
      syncSourceHost: '',
      syncSourceId: new Int32(-1),
      infoMessage: '',
      electionTime: ts,
      electionDate: new Date(services.startedAtMs),
      configVersion: new Int32(1),
      configTerm: new Int32(1),
      self: true,
      lastHeartbeatMessage: '',
    };
    return {
      set,
      date: now,
      myState: new Int32(1),
      term: Long.fromInt(1),
      syncSourceHost: '',
      syncSourceId: new Int32(-1),
      heartbeatIntervalMillis: Long.fromInt(2000),
      majorityVoteCount: new Int32(1),
      writeMajorityCount: new Int32(1),
      votingMembersCount: new Int32(1),
      writableVotingMembersCount: new Int32(1),
      optimes: {
        lastCommittedOpTime: opTime,
        lastCommittedWallTime: now,
        readConcernMajorityOpTime: opTime,
        appliedOpTime: opTime,
        durableOpTime: opTime,
        lastAppliedWallTime: now,
        lastDurableWallTime: now,
      },
      members: [member],
    };
  },
});

export const replSetGetConfig = defineCommand({
  name: 'replSetGetConfig',
  auth: onCluster('replSetGetConfig'),
  args: { commitmentStatus: t.bool, includeNewlyAdded: t.bool },
  traits: { adminOnly: true },
  run: ({ services }) => {
    const set = requireReplSet(services);
    return {
      config: {
        _id: set,
        version: new Int32(1),
        term: new Int32(1),
        members: [
          {
            _id: new Int32(0),
            host: services.config.advertisedHost,
            arbiterOnly: false,
            buildIndexes: true,
            hidden: false,
            priority: new Double(1),
            tags: {},
            secondaryDelaySecs: Long.fromInt(0),
            votes: new Int32(1),
          },
        ],
        protocolVersion: Long.fromInt(1),
        writeConcernMajorityJournalDefault: true,
        settings: {
          chainingAllowed: true,
          heartbeatIntervalMillis: new Int32(2000),
          heartbeatTimeoutSecs: new Int32(10),
          electionTimeoutMillis: new Int32(10000),
          catchUpTimeoutMillis: new Int32(-1),
          getLastErrorModes: {},
          getLastErrorDefaults: { w: new Int32(1), wtimeout: new Int32(0) },
          replicaSetId: electionId,
        },
      },
    };
  },
});

/** mongod's BSONElement::numberLong of a command's first value: 0 unless it is a number. */
function firstNumber(v: BsonValue | undefined): number {
  const n = v === undefined ? undefined : numericValue(v);
  return n === undefined || Number.isNaN(n) ? 0 : Math.trunc(n);
}

/** bsonExtractIntegerField: a number with a whole value, else TypeMismatch / BadValue. */
function integerField(name: string, v: BsonValue | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = numericValue(v);
  if (n === undefined)
    throw new CommandError(ErrorCode.TypeMismatch, `"${name}" had the wrong type. Expected number`);
  if (!Number.isInteger(n))
    throw new CommandError(
      ErrorCode.BadValue,
      `Expected field "${name}" to have a value exactly representable as a 64-bit integer, but found ${n}`,
    );
  return n;
}

/** mongod's dateToISOStringLocal: local time with its UTC offset, to the millisecond. */
function isoLocal(d: Date): string {
  const offsetMin = -d.getTimezoneOffset();
  const local = new Date(d.getTime() + offsetMin * 60_000).toISOString().slice(0, 23);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

/**
 * replSetStepDown as mongod's (repl_set_commands.cpp, ReplicationCoordinatorImpl::stepDown):
 * arguments checked first; then the attempt: no writes are taken (NotWritablePrimary) while it
 * waits `secondaryCatchUpPeriodSecs` (default 10) for an electable secondary to catch up. This
 * set has none, so the attempt fails with ExceededTimeLimit (262) and the node is primary and
 * writable again. `force: true` would step the one member down for `stepDownSecs`; that is not
 * done here and is refused with NotImplemented (docs/compatibility.md).
 */
export const replSetStepDown = defineCommand({
  name: 'replSetStepDown',
  auth: onCluster('replSetStateChange'),
  args: { force: t.any, secondaryCatchUpPeriodSecs: t.any },
  traits: { adminOnly: true },
  run: async ({ services, target, args, op }) => {
    requireReplSet(services);
    const force = args.force !== undefined && truthy(args.force);
    let stepDownSecs = firstNumber(target as BsonValue | undefined);
    if (stepDownSecs === 0) stepDownSecs = 60;
    else if (stepDownSecs < 0)
      throw new CommandError(ErrorCode.BadValue, 'stepdown period must be a positive integer');
    const catchUpSecs =
      integerField('secondaryCatchUpPeriodSecs', args.secondaryCatchUpPeriodSecs) ??
      (force ? 0 : 10);
    if (catchUpSecs < 0)
      throw new CommandError(
        ErrorCode.BadValue,
        'secondaryCatchUpPeriodSecs period must be a positive or absent',
      );
    if (stepDownSecs < catchUpSecs)
      throw new CommandError(
        ErrorCode.BadValue,
        'stepdown period must be longer than secondaryCatchUpPeriodSecs',
      );
    if (force)
      throw new CommandError(
        ErrorCode.NotImplemented,
        'replSetStepDown with force: true is not supported: this one-member replica set stays primary',
      );
    const topology = services.topology;
    if (topology.steppingDown)
      throw new CommandError(
        ErrorCode.ConflictingOperationInProgress,
        'This node is already in the process of stepping down',
      );
    services.logger.info(
      'REPL',
      21579,
      'Attempting to step down in response to replSetStepDown command',
    );
    topology.steppingDown = true;
    try {
      const waitUntilMs = Date.now() + catchUpSecs * 1000;
      const deadlineMs = op.deadlineMs;
      const untilMs = deadlineMs === undefined ? waitUntilMs : Math.min(deadlineMs, waitUntilMs);
      if (untilMs > Date.now()) await interruptibleSleep(untilMs - Date.now(), op.signal);
      if (deadlineMs !== undefined && deadlineMs <= waitUntilMs)
        throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
    } finally {
      topology.steppingDown = false;
    }
    throw new CommandError(
      ErrorCode.ExceededTimeLimit,
      `No electable secondaries caught up as of ${isoLocal(new Date())}` +
        'Please use the replSetStepDown command with the argument {force: true} to force node to step down.',
    );
  },
});

/** On a primary mongod refuses any freeze, 0 included (TopologyCoordinator::prepareFreezeResponse). */
export const replSetFreeze = defineCommand({
  name: 'replSetFreeze',
  auth: onCluster('replSetStateChange'),
  args: {},
  traits: { adminOnly: true },
  run: ({ services }) => {
    requireReplSet(services);
    throw new CommandError(
      ErrorCode.NotSecondary,
      'Cannot freeze node when primary or running for election, state: Primary',
    );
  },
});

/** BSONElement::trueValue. */
function truthy(v: BsonValue): boolean {
  if (v === null || v === false) return false;
  const n = numericValue(v);
  return n === undefined ? true : n !== 0;
}

export const replSetCommands: CommandDefinition[] = [
  replSetGetStatus,
  replSetGetConfig,
  replSetStepDown,
  replSetFreeze,
];
