// Users and roles as mongod keeps them: one document per user in admin.system.users
// (_id "<db>.<user>", credentials per SCRAM mechanism, roles) and one per user-defined role in
// admin.system.roles (_id "<db>.<role>", privileges, roles). They are ordinary collections of
// the catalog, so their changes are written with the oplog entries mongod writes for them and
// survive restarts on lmdb.
//
// Any change to either collection (user and role commands, a dropped admin database) bumps a
// generation number; an authenticated connection whose user was computed at an older
// generation recomputes its privileges before its next command, as mongod's user cache does.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection } from '../../catalog/collection.js';
import type { OpObserver } from '../../catalog/observer.js';
import type { Logger } from '../../log.js';
import type { ReadView, StorageEngine, WriteTxn } from '../../storage/engine.js';
import type { ActionType } from '../../auth/actions.js';
import { isActionType } from '../../auth/actions.js';
import type { RoleName } from '../../auth/builtin-roles.js';
import type { Privilege } from '../../auth/privileges.js';
import { patternFromDocument } from '../../auth/resource.js';
import type { CustomRole, RoleSource } from '../../auth/roles.js';
import { resolveRoles, roleKey } from '../../auth/roles.js';
import type { ScramCredential, ScramMechanism } from '../../auth/scram.js';
import { scramMechanisms } from '../../auth/scram.js';
import type { AuthenticatedUser, ConnectionAuth } from '../../auth/session.js';

export const usersCollection = 'system.users';
export const rolesCollection = 'system.roles';

export function userId(db: string, user: string): string {
  return `${db}.${user}`;
}

/** Role names from stored {role, db} documents (malformed entries skipped). */
export function roleNamesOf(v: BsonValue | undefined): RoleName[] {
  if (!Array.isArray(v)) return [];
  const out: RoleName[] = [];
  for (const r of v) {
    if (isPlainDocument(r) && typeof r['role'] === 'string' && typeof r['db'] === 'string')
      out.push({ role: r['role'], db: r['db'] });
  }
  return out;
}

/** Stored privilege documents ({resource, actions}); unknown actions are skipped. */
export function privilegesOf(v: BsonValue | undefined): Privilege[] {
  if (!Array.isArray(v)) return [];
  const out: Privilege[] = [];
  for (const p of v) {
    if (!isPlainDocument(p) || !Array.isArray(p['actions'])) continue;
    try {
      const actions = p['actions'].filter(
        (a): a is ActionType => typeof a === 'string' && isActionType(a),
      );
      out.push({ resource: patternFromDocument(p['resource']), actions });
    } catch {
      continue;
    }
  }
  return out;
}

function credentialOf(v: BsonValue | undefined): ScramCredential | undefined {
  if (!isPlainDocument(v)) return undefined;
  const { salt, storedKey, serverKey } = v;
  const iterationCount = numericValue(v['iterationCount']);
  if (
    typeof salt !== 'string' ||
    typeof storedKey !== 'string' ||
    typeof serverKey !== 'string' ||
    iterationCount === undefined
  )
    return undefined;
  return {
    iterationCount,
    salt: Buffer.from(salt, 'base64'),
    storedKey: Buffer.from(storedKey, 'base64'),
    serverKey: Buffer.from(serverKey, 'base64'),
  };
}

export interface AuthServiceOptions {
  readonly catalog: Catalog;
  readonly engine: StorageEngine;
  readonly enabled: boolean;
  /** The enableLocalhostAuthBypass parameter. */
  readonly localhostBypassEnabled: () => boolean;
  readonly logger: Logger;
}

export class AuthService {
  private generationValue = 1;
  private rolesCache: { generation: number; roles: Map<string, CustomRole> } | undefined;
  private usersExistCache: { generation: number; value: boolean } | undefined;

  constructor(private readonly options: AuthServiceOptions) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  get generation(): number {
    return this.generationValue;
  }

  /** Users or roles changed: cached rights are stale. */
  bump(): void {
    this.generationValue++;
  }

  private read<T>(fn: (view: ReadView) => T): T {
    const snap = this.options.engine.snapshot();
    try {
      return fn(snap);
    } finally {
      snap.release();
    }
  }

  private collection(name: string): Collection | undefined {
    return this.options.catalog.get('admin', name);
  }

  /** Whether admin.system.users holds any user (the localhost exception ends when it does). */
  hasUsers(): boolean {
    const g = this.generationValue;
    if (this.usersExistCache?.generation === g) return this.usersExistCache.value;
    const coll = this.collection(usersCollection);
    const value = coll !== undefined && this.read((v) => coll.count(v) > 0);
    this.usersExistCache = { generation: g, value };
    return value;
  }

  /** The localhost exception is open for this connection. */
  localhostBypass(connection: { readonly auth: ConnectionAuth }): boolean {
    return (
      this.options.enabled &&
      connection.auth.loopback &&
      this.options.localhostBypassEnabled() &&
      !this.hasUsers()
    );
  }

  userDocument(db: string, user: string, view?: ReadView): BsonDocument | undefined {
    const coll = this.collection(usersCollection);
    if (coll === undefined) return undefined;
    const find = (v: ReadView): BsonDocument | undefined => coll.findById(v, userId(db, user))?.doc;
    return view === undefined ? this.read(find) : find(view);
  }

  roleDocument(role: RoleName, view?: ReadView): BsonDocument | undefined {
    const coll = this.collection(rolesCollection);
    if (coll === undefined) return undefined;
    const find = (v: ReadView): BsonDocument | undefined =>
      coll.findById(v, userId(role.db, role.role))?.doc;
    return view === undefined ? this.read(find) : find(view);
  }

  /** Every stored user (or role) document, in _id order, optionally of one database. */
  documents(collection: string, db?: string, view?: ReadView): BsonDocument[] {
    const coll = this.collection(collection);
    if (coll === undefined) return [];
    const scan = (v: ReadView): BsonDocument[] => {
      const out: BsonDocument[] = [];
      for (const r of coll.scanRecords(v))
        if (db === undefined || r.doc['db'] === db) out.push(r.doc);
      return out.sort((a, b) => String(a['_id']).localeCompare(String(b['_id'])));
    };
    return view === undefined ? this.read(scan) : scan(view);
  }

  /** The user's stored credential for a mechanism (SCRAM lookup). */
  credential(db: string, user: string, mechanism: ScramMechanism): ScramCredential | undefined {
    const doc = this.userDocument(db, user);
    const creds = doc?.['credentials'];
    return isPlainDocument(creds) ? credentialOf(creds[mechanism]) : undefined;
  }

  /** The mechanisms a user has credentials for (hello's saslSupportedMechs); undefined: no such user. */
  mechanismsOf(db: string, user: string): string[] | undefined {
    const doc = this.userDocument(db, user);
    if (doc === undefined) return undefined;
    const creds = doc['credentials'];
    return scramMechanisms.filter((m) => isPlainDocument(creds) && creds[m] !== undefined);
  }

  /** User-defined roles, read once per generation. */
  roleSource(): RoleSource {
    const g = this.generationValue;
    if (this.rolesCache?.generation !== g) {
      const roles = new Map<string, CustomRole>();
      for (const doc of this.documents(rolesCollection)) {
        if (typeof doc['role'] !== 'string' || typeof doc['db'] !== 'string') continue;
        roles.set(roleKey({ role: doc['role'], db: doc['db'] }), {
          privileges: privilegesOf(doc['privileges']),
          roles: roleNamesOf(doc['roles']),
        });
      }
      this.rolesCache = { generation: g, roles };
    }
    const roles = this.rolesCache.roles;
    return { custom: (r) => roles.get(roleKey(r)) };
  }

  /** The rights of a stored user, or undefined if there is no such user. */
  loadUser(db: string, user: string): AuthenticatedUser | undefined {
    const generation = this.generationValue;
    const doc = this.userDocument(db, user);
    if (doc === undefined) return undefined;
    const roles = roleNamesOf(doc['roles']);
    const resolved = resolveRoles(roles, this.roleSource());
    return { user, db, roles, privileges: resolved.privileges, generation };
  }

  /** Before a command: a connection's user is recomputed after users or roles changed (or dropped if gone). */
  refresh(connection: { readonly auth: ConnectionAuth }): void {
    const current = connection.auth.user;
    if (current === undefined || current.generation === this.generationValue) return;
    connection.auth.user = this.loadUser(current.db, current.user);
    if (connection.auth.user === undefined)
      this.options.logger.info(
        'ACCESS',
        20245,
        'Removed deleted user from session cache of user information',
        {
          user: { user: current.user, db: current.db },
        },
      );
  }
}

/**
 * An observer that bumps the generation on any change to admin.system.users or
 * admin.system.roles, then calls the next one (the oplog).
 */
export function watchAuthCollections(next: OpObserver, changed: () => void): OpObserver {
  const touch = (txn: WriteTxn, coll: Collection): void => {
    if (coll.meta.db !== 'admin') return;
    if (coll.meta.name !== usersCollection && coll.meta.name !== rolesCollection) return;
    changed();
    txn.onOutcome?.(() => {
      changed();
      return undefined;
    });
  };
  return {
    onInsert(txn, coll, doc, encoded, statement) {
      touch(txn, coll);
      next.onInsert(txn, coll, doc, encoded, statement);
    },
    onUpdate(txn, coll, before, after, diff, encoded, statement) {
      touch(txn, coll);
      next.onUpdate(txn, coll, before, after, diff, encoded, statement);
    },
    onDelete(txn, coll, doc, statement) {
      touch(txn, coll);
      next.onDelete(txn, coll, doc, statement);
    },
    // Transactions cannot run on the admin database, so a commit never touches its users.
    onTransactionCommit: (txn, transaction, lsid) =>
      next.onTransactionCommit(txn, transaction, lsid),
    onCreateCollection: (txn, coll) => next.onCreateCollection(txn, coll),
    onDropCollection(txn, coll) {
      touch(txn, coll);
      next.onDropCollection(txn, coll);
    },
    onRenameCollection(txn, from, coll, dropTarget) {
      touch(txn, coll);
      if (from.db === 'admin' && (from.name === usersCollection || from.name === rolesCollection))
        changed();
      if (dropTarget !== undefined) touch(txn, dropTarget);
      next.onRenameCollection(txn, from, coll, dropTarget);
    },
    onCollMod: (txn, coll, command, oldOptions, oldIndexOptions) =>
      next.onCollMod(txn, coll, command, oldOptions, oldIndexOptions),
    onCreateIndex: (txn, coll, spec) => next.onCreateIndex(txn, coll, spec),
    onDropIndex: (txn, coll, spec) => next.onDropIndex(txn, coll, spec),
  };
}
