// Replica-set introspection for the one-member set this server presents:
// replSetGetStatus and replSetGetConfig, in mongod's shape.

import { Double, Int32, Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { electionId } from '../diag/handshake.js';
import { t } from '../args.js';
import { onCluster } from '../authorization.js';

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

export const replSetCommands: CommandDefinition[] = [replSetGetStatus, replSetGetConfig];
