// User management: createUser, updateUser, dropUser, dropAllUsersFromDatabase, usersInfo,
// grantRolesToUser, revokeRolesFromUser. A user is one document in admin.system.users with a
// SCRAM credential per mechanism (salt, iteration count, StoredKey, ServerKey); the password
// itself is never stored, logged or shown.

import { Binary, Int32, UUID } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ActionType } from '../../auth/actions.js';
import type { RoleName } from '../../auth/builtin-roles.js';
import { privilege } from '../../auth/privileges.js';
import type { Privilege } from '../../auth/privileges.js';
import { clusterResource, databaseResource } from '../../auth/resource.js';
import { resolveRoles } from '../../auth/roles.js';
import type { ScramMechanism } from '../../auth/scram.js';
import { isScramMechanism, makeCredential, scramMechanisms } from '../../auth/scram.js';
import { t } from '../args.js';
import { onDatabase, privileges, userKeyOf } from '../authorization.js';
import type { OperationContext, ServerServices } from '../context.js';
import type { WriteTxn } from '../../storage/engine.js';
import { compileQueryFilter } from '../query-language.js';
import { makeOperationContext } from '../context.js';
import { defineCommand } from '../registry.js';
import type { AuthInput, CommandDefinition, Invocation, Requirement } from '../registry.js';
import { engineAccess } from '../../txn/access.js';
import { parseWriteConcern } from '../write-concern.js';
import {
  checkName,
  deleteAuthDocuments,
  insertAuthDocument,
  parseRoles,
  replaceAuthDocument,
  requireRolesExist,
  roleDocument,
  changeRoleList,
} from './common.js';
import { roleNamesOf, usersCollection, userId } from './service.js';

const userArgs = {
  pwd: t.string,
  customData: t.document,
  roles: t.array,
  digestPassword: t.bool,
  authenticationRestrictions: t.array,
  mechanisms: t.array,
};

function iterationsFor(services: ServerServices, m: ScramMechanism): number {
  const name = m === 'SCRAM-SHA-1' ? 'scramIterationCount' : 'scramSHA256IterationCount';
  return numericValue(services.parameters.get(name)) ?? (m === 'SCRAM-SHA-1' ? 10000 : 15000);
}

function enabledMechanisms(services: ServerServices): string[] {
  const v = services.parameters.get('authenticationMechanisms');
  return Array.isArray(v)
    ? v.filter((m): m is string => typeof m === 'string')
    : [...scramMechanisms];
}

/** The mechanisms field: known SCRAM mechanisms, enabled on this server. */
function parseMechanisms(services: ServerServices, v: BsonValue[] | undefined): ScramMechanism[] {
  const enabled = enabledMechanisms(services);
  if (v === undefined) return scramMechanisms.filter((m) => enabled.includes(m));
  if (v.length === 0)
    throw new CommandError(ErrorCode.BadValue, 'mechanisms field must not be empty');
  const out: ScramMechanism[] = [];
  for (const m of v) {
    if (typeof m !== 'string' || !isScramMechanism(m) || !enabled.includes(m))
      throw new CommandError(
        ErrorCode.BadValue,
        `Unknown auth mechanism '${typeof m === 'string' ? m : String(m)}'`,
      );
    if (!out.includes(m)) out.push(m);
  }
  return scramMechanisms.filter((m) => out.includes(m));
}

async function credentialsFor(
  services: ServerServices,
  user: string,
  pwd: string,
  mechanisms: readonly ScramMechanism[],
  digestPassword: boolean,
): Promise<BsonDocument> {
  if (pwd === '') throw new CommandError(ErrorCode.BadValue, 'User passwords must not be empty');
  if (!digestPassword && mechanisms.includes('SCRAM-SHA-256'))
    throw new CommandError(
      ErrorCode.BadValue,
      'Use of SCRAM-SHA-256 requires undigested passwords',
    );
  const out: BsonDocument = {};
  for (const m of mechanisms) {
    let c;
    try {
      c = await makeCredential(m, user, pwd, iterationsFor(services, m), digestPassword);
    } catch (e) {
      // saslprep refuses prohibited characters; the message never carries the password.
      throw new CommandError(
        ErrorCode.BadValue,
        `Error preparing password for ${m}: ${e instanceof Error ? e.message.replace(/:.*$/, '') : 'invalid'}`,
      );
    }
    out[m] = {
      iterationCount: new Int32(c.iterationCount),
      salt: c.salt.toString('base64'),
      storedKey: c.storedKey.toString('base64'),
      serverKey: c.serverKey.toString('base64'),
    };
  }
  return out;
}

/** Role privileges: grantRole on each role's database (mongod's checkAuthorizedToGrantRoles). */
function grantPrivileges(roles: readonly RoleName[], action: ActionType): Privilege[] {
  return roles.map((r) => privilege(databaseResource(r.db), action));
}

function rolesArg(
  input: { readonly body: BsonDocument; readonly db: string },
  name: string,
): RoleName[] {
  const roles = input.body['roles'];
  try {
    return roles === undefined ? [] : parseRoles(name, 'roles', roles, input.db);
  } catch {
    return [];
  }
}

/** The writes run through the command's data access, durable as its write concern asks. */
function write<T>(inv: { readonly op: OperationContext }, fn: (txn: WriteTxn) => T): Promise<T> {
  return inv.op.access.write(fn);
}

function requireUser(services: ServerServices, db: string, user: string): BsonDocument {
  const doc = services.auth.userDocument(db, user);
  if (doc === undefined)
    throw new CommandError(ErrorCode.UserNotFound, `Could not find user "${user}" for db "${db}"`);
  return doc;
}

function requirePasswordRules(db: string, pwd: string | undefined): void {
  if (db === '$external' && pwd !== undefined)
    throw new CommandError(
      ErrorCode.BadValue,
      "Cannot set the password for users defined on the '$external' database",
    );
  if (db !== '$external' && pwd === undefined)
    throw new CommandError(
      ErrorCode.BadValue,
      "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db",
    );
}

export const createUser = defineCommand({
  name: 'createUser',
  args: userArgs,
  auth: privileges(
    'createUser on the database; grantRole on the databases of the roles',
    (input) => [
      [
        privilege(databaseResource(input.db), 'createUser'),
        ...grantPrivileges(rolesArg(input, 'createUser'), 'grantRole'),
      ],
    ],
  ),
  run: async (inv) => {
    const { services, args, db } = inv;
    const user = checkName('User', inv.target, 'createUser');
    if (args.roles === undefined) throw missingFieldError('createUser.roles');
    const roles = parseRoles('createUser', 'roles', args.roles, db);
    requirePasswordRules(db, args.pwd);
    requireRolesExist(services, roles);
    const mechanisms = parseMechanisms(services, args.mechanisms);
    const credentials =
      args.pwd === undefined
        ? { external: new Int32(1) }
        : await credentialsFor(services, user, args.pwd, mechanisms, args.digestPassword ?? true);
    const doc: BsonDocument = {
      _id: userId(db, user),
      userId: new UUID(),
      user,
      db,
      credentials,
      roles: roles.map(roleDocument),
    };
    if (args.customData !== undefined) doc['customData'] = args.customData;
    if (args.authenticationRestrictions !== undefined)
      doc['authenticationRestrictions'] = args.authenticationRestrictions;
    await write(inv, (txn) => {
      if (services.auth.userDocument(db, user, txn) !== undefined)
        throw new CommandError(ErrorCode.Location51003, `User "${user}@${db}" already exists`);
      insertAuthDocument(txn, services, usersCollection, doc);
    });
    return {};
  },
});

function updateRequirement(input: AuthInput<typeof userArgs>): Requirement {
  const { args, db } = input;
  const user = typeof input.target === 'string' ? input.target : '';
  const self = userKeyOf(input.connection) === `${user}@${db}`;
  const needs: Privilege[] = [];
  const dbRes = databaseResource(db);
  if (args.pwd !== undefined || args.mechanisms !== undefined)
    needs.push(privilege(dbRes, self ? 'changeOwnPassword' : 'changePassword'));
  if (args.customData !== undefined)
    needs.push(privilege(dbRes, self ? 'changeOwnCustomData' : 'changeCustomData'));
  if (args.roles !== undefined) {
    needs.push(
      privilege(dbRes, 'revokeRole'),
      ...grantPrivileges(rolesArg(input, 'updateUser'), 'grantRole'),
    );
  }
  if (args.authenticationRestrictions !== undefined)
    needs.push(privilege(dbRes, 'setAuthenticationRestriction'));
  // Changing one's own password or data is also allowed with the non-"own" action.
  if (!self) return [needs];
  const asOther = needs.map((p) =>
    p.actions[0] === 'changeOwnPassword'
      ? privilege(dbRes, 'changePassword')
      : p.actions[0] === 'changeOwnCustomData'
        ? privilege(dbRes, 'changeCustomData')
        : p,
  );
  return [needs, asOther];
}

export const updateUser = defineCommand({
  name: 'updateUser',
  args: userArgs,
  auth: privileges(
    'changePassword / changeCustomData / grantRole and revokeRole / setAuthenticationRestriction on the database (changeOwnPassword, changeOwnCustomData for oneself)',
    updateRequirement,
  ),
  run: async (inv) => {
    const { services, args, db } = inv;
    const user = checkName('User', inv.target, 'updateUser');
    if (
      args.pwd === undefined &&
      args.customData === undefined &&
      args.roles === undefined &&
      args.authenticationRestrictions === undefined &&
      args.mechanisms === undefined
    )
      throw new CommandError(
        ErrorCode.BadValue,
        'Must specify at least one field to update in updateUser',
      );
    if (db === '$external' && args.pwd !== undefined) requirePasswordRules(db, args.pwd);
    const roles =
      args.roles === undefined ? undefined : parseRoles('updateUser', 'roles', args.roles, db);
    if (roles !== undefined) requireRolesExist(services, roles);
    const before = requireUser(services, db, user);
    const existing = isPlainDocument(before['credentials']) ? before['credentials'] : {};
    let credentials: BsonDocument | undefined;
    if (args.pwd !== undefined) {
      const mechanisms = parseMechanisms(services, args.mechanisms);
      credentials = await credentialsFor(
        services,
        user,
        args.pwd,
        mechanisms,
        args.digestPassword ?? true,
      );
    } else if (args.mechanisms !== undefined) {
      const mechanisms = parseMechanisms(services, args.mechanisms);
      if (mechanisms.some((m) => existing[m] === undefined))
        throw new CommandError(
          ErrorCode.BadValue,
          'mechanisms field must be a subset of previously set mechanisms',
        );
      credentials = Object.fromEntries(mechanisms.map((m) => [m, existing[m] ?? null]));
    }
    await write(inv, (txn) => {
      const current = services.auth.userDocument(db, user, txn);
      if (current === undefined)
        throw new CommandError(
          ErrorCode.UserNotFound,
          `Could not find user "${user}" for db "${db}"`,
        );
      const after: BsonDocument = { ...current };
      if (credentials !== undefined) after['credentials'] = credentials;
      if (roles !== undefined) after['roles'] = roles.map(roleDocument);
      if (args.customData !== undefined) after['customData'] = args.customData;
      if (args.authenticationRestrictions !== undefined)
        after['authenticationRestrictions'] = args.authenticationRestrictions;
      replaceAuthDocument(txn, services, usersCollection, userId(db, user), after);
    });
    return {};
  },
});

export const dropUser = defineCommand({
  name: 'dropUser',
  args: {},
  auth: onDatabase('dropUser'),
  run: async (inv) => {
    const { services, db } = inv;
    const user = checkName('User', inv.target, 'dropUser');
    const n = await write(inv, (txn) =>
      deleteAuthDocuments(txn, services, usersCollection, (d) => d['_id'] === userId(db, user)),
    );
    if (n === 0) throw new CommandError(ErrorCode.UserNotFound, `User '${user}@${db}' not found`);
    return {};
  },
});

export const dropAllUsersFromDatabase = defineCommand({
  name: 'dropAllUsersFromDatabase',
  args: {},
  auth: onDatabase('dropUser'),
  run: async (inv) => {
    const { services, db } = inv;
    const n = await write(inv, (txn) =>
      deleteAuthDocuments(txn, services, usersCollection, (d) => d['db'] === db),
    );
    return { n: new Int32(n) };
  },
});

function rolesChange(
  name: 'grantRolesToUser' | 'revokeRolesFromUser',
  grant: boolean,
): CommandDefinition {
  return defineCommand({
    name,
    args: { roles: t.array },
    auth: privileges(
      `${grant ? 'grantRole' : 'revokeRole'} on the databases of the roles`,
      (input) => [grantPrivileges(rolesArg(input, name), grant ? 'grantRole' : 'revokeRole')],
    ),
    run: async (inv) => {
      const { services, args, db } = inv;
      const user = checkName('User', inv.target, name);
      const roles = args.roles === undefined ? [] : parseRoles(name, 'roles', args.roles, db);
      if (roles.length === 0)
        throw new CommandError(
          ErrorCode.BadValue,
          `${name} command requires a non-empty "roles" array`,
        );
      requireRolesExist(services, roles);
      requireUser(services, db, user);
      await write(inv, (txn) => {
        const current = services.auth.userDocument(db, user, txn);
        if (current === undefined)
          throw new CommandError(
            ErrorCode.UserNotFound,
            `Could not find user "${user}" for db "${db}"`,
          );
        const held = changeRoleList(roleNamesOf(current['roles']), roles, grant);
        replaceAuthDocument(txn, services, usersCollection, userId(db, user), {
          ...current,
          roles: held.map(roleDocument),
        });
      });
      return {};
    },
  }) as CommandDefinition;
}

export const grantRolesToUser = rolesChange('grantRolesToUser', true);
export const revokeRolesFromUser = rolesChange('revokeRolesFromUser', false);

// --- usersInfo -----------------------------------------------------------------------------

type UsersSelection =
  | { readonly kind: 'db'; readonly db: string }
  | { readonly kind: 'all' }
  | { readonly kind: 'names'; readonly names: readonly { user: string; db: string }[] };

function parseUsersInfo(v: BsonValue | undefined, db: string): UsersSelection {
  if (numericValue(v) === 1) return { kind: 'db', db };
  if (isPlainDocument(v) && v['forAllDBs'] === true && Object.keys(v).length === 1)
    return { kind: 'all' };
  const one = (x: BsonValue): { user: string; db: string } => {
    if (typeof x === 'string') return { user: x, db };
    if (isPlainDocument(x) && typeof x['user'] === 'string' && typeof x['db'] === 'string')
      return { user: x['user'], db: x['db'] };
    throw new CommandError(
      ErrorCode.BadValue,
      'User names must be either strings or objects of the form {user: "userName", db: "databaseName"}',
    );
  };
  return { kind: 'names', names: Array.isArray(v) ? v.map(one) : [one(v ?? null)] };
}

function usersInfoRequirement(input: AuthInput<typeof usersInfoArgs>): Requirement {
  let sel: UsersSelection;
  try {
    sel = parseUsersInfo(input.target, input.db);
  } catch {
    return [[privilege(databaseResource(input.db), 'viewUser')]];
  }
  if (sel.kind === 'all') return [[privilege(clusterResource, 'viewUser')]];
  if (sel.kind === 'db') return [[privilege(databaseResource(sel.db), 'viewUser')]];
  const self = userKeyOf(input.connection);
  return [
    sel.names
      .filter((n) => `${n.user}@${n.db}` !== self)
      .map((n) => privilege(databaseResource(n.db), 'viewUser')),
  ];
}

const usersInfoArgs = {
  showCredentials: t.bool,
  showCustomData: t.bool,
  showPrivileges: t.bool,
  showAuthenticationRestrictions: t.bool,
  filter: t.document,
};

function userInfo(
  services: ServerServices,
  doc: BsonDocument,
  inv: Invocation<typeof usersInfoArgs>,
): BsonDocument {
  const { args } = inv;
  const creds = isPlainDocument(doc['credentials']) ? doc['credentials'] : {};
  const out: BsonDocument = { _id: doc['_id'] ?? null };
  if (doc['userId'] instanceof Binary) out['userId'] = doc['userId'];
  out['user'] = doc['user'] ?? null;
  out['db'] = doc['db'] ?? null;
  if (args.showCredentials === true) out['credentials'] = creds;
  out['roles'] = doc['roles'] ?? [];
  if (doc['customData'] !== undefined && args.showCustomData !== false)
    out['customData'] = doc['customData'];
  out['mechanisms'] = scramMechanisms.filter((m) => creds[m] !== undefined);
  if (args.showAuthenticationRestrictions === true || args.showPrivileges === true)
    out['authenticationRestrictions'] = doc['authenticationRestrictions'] ?? [];
  if (args.showPrivileges === true) {
    const resolved = resolveRoles(roleNamesOf(doc['roles']), services.auth.roleSource());
    out['inheritedRoles'] = resolved.all.map(roleDocument);
    out['inheritedPrivileges'] = resolved.privileges.toDocuments();
    out['inheritedAuthenticationRestrictions'] = [];
  }
  return out;
}

export const usersInfo = defineCommand({
  name: 'usersInfo',
  args: usersInfoArgs,
  auth: privileges(
    "viewUser on the users' databases (or the cluster for forAllDBs); none to see oneself",
    usersInfoRequirement,
  ),
  run: (inv) => {
    const { services, args, db } = inv;
    const sel = parseUsersInfo(inv.target, db);
    let docs: BsonDocument[];
    if (sel.kind === 'names') {
      docs = [];
      for (const n of sel.names) {
        const d = services.auth.userDocument(n.db, n.user);
        if (d !== undefined) docs.push(d);
      }
    } else {
      docs = services.auth.documents(usersCollection, sel.kind === 'db' ? sel.db : undefined);
    }
    if (args.filter !== undefined) {
      if (sel.kind === 'names')
        throw new CommandError(ErrorCode.BadValue, 'Filter is only supported in bulk lookups');
      const matcher = compileQueryFilter(args.filter, {});
      if (matcher !== undefined) docs = docs.filter((d) => matcher.matches(d));
    }
    return {
      users: docs.slice(0, limits.usersInfoResultsMax).map((d) => userInfo(services, d, inv)),
    };
  },
});

export const userCommands: CommandDefinition[] = [
  createUser,
  updateUser,
  dropUser,
  dropAllUsersFromDatabase,
  grantRolesToUser,
  revokeRolesFromUser,
  usersInfo,
] as CommandDefinition[];

/**
 * At start-up: the initial root user (the daemon's SECANTUS_INITIAL_ROOT_USER, the in-process
 * server's auth option), created when admin.system.users has no user of that name.
 */
export async function createInitialUser(
  services: ServerServices,
  user: { readonly username: string; readonly password: string },
): Promise<boolean> {
  if (services.auth.userDocument('admin', user.username) !== undefined) return false;
  const credentials = await credentialsFor(
    services,
    user.username,
    user.password,
    scramMechanisms,
    true,
  );
  const doc: BsonDocument = {
    _id: userId('admin', user.username),
    userId: new UUID(),
    user: user.username,
    db: 'admin',
    credentials,
    roles: [{ role: 'root', db: 'admin' }],
  };
  const op = makeOperationContext(
    undefined,
    parseWriteConcern(undefined),
    undefined,
    engineAccess(services.engine, true),
    undefined,
  );
  await op.access.write((txn) => insertAuthDocument(txn, services, usersCollection, doc));
  services.logger.info('ACCESS', 20258, 'Created the initial root user', {
    user: user.username,
    db: 'admin',
  });
  return true;
}
