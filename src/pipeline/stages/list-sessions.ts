// $listSessions and $listLocalSessions: the logical sessions this server knows, as
// {_id: {id, uid}, lastUse} documents. Both take mongod's ListSessionsSpec ({allUsers: bool,
// users: [{user, db}]}); without either, the caller's own sessions. This server has no
// authentication, so every session belongs to the anonymous user (uid: SHA-256 of the empty
// name): the default and allUsers list them all, a `users` list naming real users lists none.
//
// mongod's $listSessions reads config.system.sessions, which its session cache writes every
// few minutes (or on refreshLogicalSessionCacheNow); here both stages read the session cache
// itself, so a session shows at once.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { lsidWithUid, sessionUserDigest } from '../../txn/sessions.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { typeName } from '../values.js';
import { ComputedSource } from './computed-source.js';
import type {
  PipelineContext,
  SessionRecord,
  Stage,
  StageConstraints,
  StageDefinition,
} from './types.js';

type StageName = '$listSessions' | '$listLocalSessions';

const userDigest = (user?: { user: string; db: string }): string =>
  sessionUserDigest(user).toString('hex');
const ANONYMOUS_DIGEST = userDigest();

interface ListSessionsSpec {
  /** The spec as written (explain). */
  readonly raw: BsonDocument;
  readonly allUsers: boolean;
  readonly users: ReadonlyArray<{ user: string; db: string }> | undefined;
}

function wrongType(path: string, v: BsonValue, expected: string): never {
  fail(
    ErrorCode.TypeMismatch,
    `BSON field '${path}' is the wrong type '${typeName(v)}', expected type '${expected}'`,
  );
}

/** One {user, db} of `users` (mongod's strict ListSessionsUser). */
function parseUser(stage: StageName, v: BsonValue): { user: string; db: string } {
  const path = `${stage}.users`;
  if (!isPlainDocument(v)) wrongType(path, v, 'object');
  for (const [k, x] of Object.entries(v)) {
    if (k !== 'user' && k !== 'db')
      fail(ErrorCode.Location40415, `BSON field '${path}.${k}' is an unknown field.`);
    if (typeof x !== 'string') wrongType(`${path}.${k}`, x, 'string');
  }
  const { user, db } = v;
  if (typeof user !== 'string') throw missingFieldError(`${path}.user`);
  if (typeof db !== 'string') throw missingFieldError(`${path}.db`);
  return { user, db };
}

/** mongod's listSessionsParseSpec. */
function parseSpec(stage: StageName, arg: BsonValue): ListSessionsSpec {
  if (!isPlainDocument(arg))
    fail(
      ErrorCode.TypeMismatch,
      `${stage} options must be specified in an object, but found: ${typeName(arg)}`,
    );
  let allUsers = false;
  let users: Array<{ user: string; db: string }> | undefined;
  for (const [k, v] of Object.entries(arg)) {
    if (k === 'allUsers') {
      if (typeof v !== 'boolean') wrongType(`${stage}.allUsers`, v, 'bool');
      allUsers = v;
    } else if (k === 'users') {
      if (!isArray(v)) wrongType(`${stage}.users`, v, 'array');
      users = v.map((u) => parseUser(stage, u));
    } else if (k === '$_internalPredicate') {
      if (!isPlainDocument(v)) wrongType(`${stage}.$_internalPredicate`, v, 'object');
      fail(ErrorCode.NotImplemented, `${stage}: $_internalPredicate is not supported`);
    } else {
      fail(ErrorCode.Location40415, `BSON field '${stage}.${k}' is an unknown field.`);
    }
  }
  if (allUsers && users !== undefined && users.length > 0) {
    fail(
      ErrorCode.UnsupportedFormat,
      `${stage} may not specify {allUsers:true} and {users:[...]} at the same time`,
    );
  }
  return { raw: arg, allUsers, users: users !== undefined && users.length > 0 ? users : undefined };
}

/** The session documents the spec selects. */
function sessionDocuments(
  spec: ListSessionsSpec,
  sessions: readonly SessionRecord[],
): BsonDocument[] {
  // Without a users list, the caller's own sessions: the anonymous user's, here.
  const wanted = spec.allUsers ? undefined : new Set((spec.users ?? [undefined]).map(userDigest));
  if (wanted !== undefined && !wanted.has(ANONYMOUS_DIGEST)) return [];
  return sessions.map((s) => ({ _id: lsidWithUid(s.lsid), lastUse: s.lastUse }));
}

class ListSessionsStage implements Stage {
  constructor(
    readonly name: StageName,
    readonly constraints: StageConstraints,
    private readonly spec: ListSessionsSpec,
    private readonly sessions: () => SessionRecord[],
  ) {}
  serialize(): BsonDocument {
    return { [this.name]: this.spec.raw };
  }
  attach(): PlanStage {
    return new ComputedSource(this.name, () => sessionDocuments(this.spec, this.sessions()));
  }
}

/** The sessions of the cache; without a server (never for a command), the command's own. */
function sessionSource(ctx: PipelineContext): () => SessionRecord[] {
  const server = ctx.server;
  if (server !== undefined) return () => server.sessions();
  const own = ctx.session;
  return () => (own === undefined ? [] : [{ lsid: own, lastUse: new Date() }]);
}

export const $listLocalSessions: StageDefinition = {
  name: '$listLocalSessions',
  parse(arg, ctx) {
    const spec = parseSpec('$listLocalSessions', arg);
    return new ListSessionsStage(
      '$listLocalSessions',
      { first: true, collectionless: true, notInFacet: true, notInTransaction: true },
      spec,
      sessionSource(ctx),
    );
  },
};

export const $listSessions: StageDefinition = {
  name: '$listSessions',
  parse(arg, ctx) {
    const spec = parseSpec('$listSessions', arg);
    if (ctx.db !== 'config' || ctx.collection !== 'system.sessions') {
      fail(
        ErrorCode.InvalidNamespace,
        '$listSessions may only be run against config.system.sessions',
      );
    }
    return new ListSessionsStage(
      '$listSessions',
      { first: true, notInFacet: true },
      spec,
      sessionSource(ctx),
    );
  },
};
