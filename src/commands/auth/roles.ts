// Role management: createRole, updateRole, dropRole, dropAllRolesFromDatabase, rolesInfo,
// grantPrivilegesToRole, revokePrivilegesFromRole, grantRolesToRole, revokeRolesFromRole.
// A user-defined role is one document in admin.system.roles: _id "<db>.<role>", role, db,
// privileges [{resource, actions}], roles [{role, db}], authenticationRestrictions.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import type { RoleName } from '../../auth/builtin-roles.js';
import {
  builtinPrivileges,
  builtinRoleNames,
  isBuiltinRole,
  isBuiltinRoleName,
} from '../../auth/builtin-roles.js';
import { privilege, PrivilegeSet } from '../../auth/privileges.js';
import type { Privilege } from '../../auth/privileges.js';
import { databaseResource } from '../../auth/resource.js';
import { reaches, resolveRoles } from '../../auth/roles.js';
import type { WriteTxn } from '../../storage/engine.js';
import { t } from '../args.js';
import { onDatabase, privileges } from '../authorization.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { AuthInput, CommandDefinition, Requirement } from '../registry.js';
import {
  checkName,
  deleteAuthDocuments,
  insertAuthDocument,
  parsePrivileges,
  parseRoles,
  privilegeDatabase,
  replaceAuthDocument,
  requireRolesExist,
  roleDocument,
  sameRole,
  changeRoleList,
} from './common.js';
import { roleNamesOf, rolesCollection, usersCollection, userId } from './service.js';

const roleArgs = {
  privileges: t.array,
  roles: t.array,
  authenticationRestrictions: t.array,
};

function safeRoles(v: BsonValue[] | undefined, db: string, command: string): RoleName[] {
  try {
    return v === undefined ? [] : parseRoles(command, 'roles', v, db);
  } catch {
    return [];
  }
}

function safePrivilegeDbs(v: BsonValue[] | undefined): string[] {
  if (v === undefined) return [];
  return v.filter(isPlainDocument).map(privilegeDatabase);
}

/** grantRole (or revokeRole) on the databases of the roles and privileges a request names. */
function grantRequirement(
  input: AuthInput<typeof roleArgs>,
  command: string,
  action: 'grantRole' | 'revokeRole',
  extra: Privilege[] = [],
): Requirement {
  const dbs = new Set<string>([
    ...safeRoles(input.args.roles, input.db, command).map((r) => r.db),
    ...safePrivilegeDbs(input.args.privileges),
  ]);
  return [[...extra, ...[...dbs].map((d) => privilege(databaseResource(d), action))]];
}

function requireCustomRole(services: ServerServices, role: RoleName, txn?: WriteTxn): BsonDocument {
  if (isBuiltinRole(role))
    throw new CommandError(
      ErrorCode.InvalidRoleModification,
      `Cannot modify built-in role: ${role.role}@${role.db}`,
    );
  const doc = services.auth.roleDocument(role, txn);
  if (doc === undefined)
    throw new CommandError(ErrorCode.RoleNotFound, `Role ${role.role}@${role.db} not found`);
  return doc;
}

/** Roles of a non-admin database may include only roles of that database. */
function checkSubroles(services: ServerServices, role: RoleName, roles: readonly RoleName[]): void {
  requireRolesExist(services, roles);
  for (const r of roles) {
    if (role.db !== 'admin' && r.db !== role.db)
      throw new CommandError(
        ErrorCode.InvalidRoleModification,
        `Roles on the '${role.db}' database cannot be granted roles from other databases`,
      );
    if (sameRole(r, role) || reaches(r, role, services.auth.roleSource()))
      throw new CommandError(
        ErrorCode.InvalidRoleModification,
        `Granting ${r.role}@${r.db} to ${role.role}@${role.db} would introduce a cycle in the role graph`,
      );
  }
}

export const createRole = defineCommand({
  name: 'createRole',
  args: roleArgs,
  auth: privileges(
    'createRole on the database; grantRole on the databases of its roles and privileges',
    (input) =>
      grantRequirement(input, 'createRole', 'grantRole', [
        privilege(databaseResource(input.db), 'createRole'),
      ]),
  ),
  run: async (inv) => {
    const { services, args, db } = inv;
    const role: RoleName = { role: checkName('Role', inv.target, 'createRole'), db };
    for (const f of ['privileges', 'roles'] as const)
      if (args[f] === undefined) throw missingFieldError(`createRole.${f}`);
    if (isBuiltinRoleName(role.role) || role.role.startsWith('__'))
      throw new CommandError(
        ErrorCode.BadValue,
        'Cannot create roles with the same name as a built-in role',
      );
    const privs = parsePrivileges('createRole', args.privileges ?? [], role);
    const roles = parseRoles('createRole', 'roles', args.roles ?? [], db);
    checkSubroles(services, role, roles);
    const doc: BsonDocument = {
      _id: userId(db, role.role),
      role: role.role,
      db,
      privileges: privs,
      roles: roles.map(roleDocument),
    };
    if (args.authenticationRestrictions !== undefined)
      doc['authenticationRestrictions'] = args.authenticationRestrictions;
    await inv.op.access.write((txn) => {
      if (services.auth.roleDocument(role, txn) !== undefined)
        throw new CommandError(ErrorCode.Location51002, `Role "${role.role}@${db}" already exists`);
      insertAuthDocument(txn, services, rolesCollection, doc);
    });
    return {};
  },
});

export const updateRole = defineCommand({
  name: 'updateRole',
  args: roleArgs,
  auth: privileges(
    'revokeRole on the database; grantRole on the databases of its new roles and privileges',
    (input) =>
      grantRequirement(input, 'updateRole', 'grantRole', [
        privilege(databaseResource(input.db), 'revokeRole'),
      ]),
  ),
  run: async (inv) => {
    const { services, args, db } = inv;
    const role: RoleName = { role: checkName('Role', inv.target, 'updateRole'), db };
    if (
      args.privileges === undefined &&
      args.roles === undefined &&
      args.authenticationRestrictions === undefined
    )
      throw new CommandError(
        ErrorCode.BadValue,
        'Must specify at least one field to update in updateRole',
      );
    requireCustomRole(services, role);
    const privs =
      args.privileges === undefined
        ? undefined
        : parsePrivileges('updateRole', args.privileges, role);
    const roles =
      args.roles === undefined ? undefined : parseRoles('updateRole', 'roles', args.roles, db);
    if (roles !== undefined) checkSubroles(services, role, roles);
    await inv.op.access.write((txn) => {
      const current = requireCustomRole(services, role, txn);
      const after: BsonDocument = { ...current };
      if (privs !== undefined) after['privileges'] = privs;
      if (roles !== undefined) after['roles'] = roles.map(roleDocument);
      if (args.authenticationRestrictions !== undefined)
        after['authenticationRestrictions'] = args.authenticationRestrictions;
      replaceAuthDocument(txn, services, rolesCollection, userId(db, role.role), after);
    });
    return {};
  },
});

/** Remove the role from every user and role that holds it (as mongod does when dropping it). */
function removeEverywhere(
  txn: WriteTxn,
  services: ServerServices,
  dropped: (r: RoleName) => boolean,
): void {
  for (const collection of [usersCollection, rolesCollection]) {
    for (const doc of services.auth.documents(collection, undefined, txn)) {
      const held = roleNamesOf(doc['roles']);
      const kept = held.filter((r) => !dropped(r));
      if (kept.length === held.length) continue;
      replaceAuthDocument(txn, services, collection, String(doc['_id']), {
        ...doc,
        roles: kept.map(roleDocument),
      });
    }
  }
}

export const dropRole = defineCommand({
  name: 'dropRole',
  args: {},
  auth: onDatabase('dropRole'),
  run: async (inv) => {
    const { services, db } = inv;
    const role: RoleName = { role: checkName('Role', inv.target, 'dropRole'), db };
    requireCustomRole(services, role);
    await inv.op.access.write((txn) => {
      requireCustomRole(services, role, txn);
      deleteAuthDocuments(
        txn,
        services,
        rolesCollection,
        (d) => d['_id'] === userId(db, role.role),
      );
      removeEverywhere(txn, services, (r) => sameRole(r, role));
    });
    return {};
  },
});

export const dropAllRolesFromDatabase = defineCommand({
  name: 'dropAllRolesFromDatabase',
  args: {},
  auth: onDatabase('dropRole'),
  run: async (inv) => {
    const { services, db } = inv;
    const n = await inv.op.access.write((txn) => {
      const count = deleteAuthDocuments(txn, services, rolesCollection, (d) => d['db'] === db);
      removeEverywhere(txn, services, (r) => r.db === db && !isBuiltinRole(r));
      return count;
    });
    return { n: new Int32(n) };
  },
});

function privilegeChange(
  name: 'grantPrivilegesToRole' | 'revokePrivilegesFromRole',
  grant: boolean,
): CommandDefinition {
  return defineCommand({
    name,
    args: { privileges: t.array },
    auth: privileges(
      `${grant ? 'grantRole' : 'revokeRole'} on the databases of the privileges`,
      (input) =>
        grantRequirement(
          input as AuthInput<typeof roleArgs>,
          name,
          grant ? 'grantRole' : 'revokeRole',
        ),
    ),
    run: async (inv) => {
      const { services, args, db } = inv;
      const role: RoleName = { role: checkName('Role', inv.target, name), db };
      if (args.privileges === undefined || args.privileges.length === 0)
        throw new CommandError(
          ErrorCode.BadValue,
          `${name} command requires a non-empty "privileges" array`,
        );
      const changes = parsePrivileges(name, args.privileges, role);
      await inv.op.access.write((txn) => {
        const current = requireCustomRole(services, role, txn);
        const held = new Map<string, Set<string>>();
        const resources = new Map<string, BsonValue>();
        const key = (r: BsonValue | undefined): string => JSON.stringify(r ?? null);
        for (const p of Array.isArray(current['privileges']) ? current['privileges'] : []) {
          if (!isPlainDocument(p) || !Array.isArray(p['actions'])) continue;
          const k = key(p['resource']);
          resources.set(k, p['resource'] ?? null);
          held.set(k, new Set(p['actions'].filter((a): a is string => typeof a === 'string')));
        }
        for (const c of changes) {
          const k = key(c['resource']);
          const actions = Array.isArray(c['actions'])
            ? c['actions'].filter((a): a is string => typeof a === 'string')
            : [];
          const set = held.get(k) ?? new Set<string>();
          for (const a of actions) {
            if (grant) set.add(a);
            else set.delete(a);
          }
          held.set(k, set);
          resources.set(k, c['resource'] ?? null);
        }
        const privs: BsonDocument[] = [];
        for (const [k, set] of held)
          if (set.size > 0)
            privs.push({ resource: resources.get(k) ?? null, actions: [...set].sort() });
        replaceAuthDocument(txn, services, rolesCollection, userId(db, role.role), {
          ...current,
          privileges: privs,
        });
      });
      return {};
    },
  }) as CommandDefinition;
}

export const grantPrivilegesToRole = privilegeChange('grantPrivilegesToRole', true);
export const revokePrivilegesFromRole = privilegeChange('revokePrivilegesFromRole', false);

function subroleChange(
  name: 'grantRolesToRole' | 'revokeRolesFromRole',
  grant: boolean,
): CommandDefinition {
  return defineCommand({
    name,
    args: { roles: t.array },
    auth: privileges(
      `${grant ? 'grantRole' : 'revokeRole'} on the databases of the roles`,
      (input) =>
        grantRequirement(
          input as AuthInput<typeof roleArgs>,
          name,
          grant ? 'grantRole' : 'revokeRole',
        ),
    ),
    run: async (inv) => {
      const { services, args, db } = inv;
      const role: RoleName = { role: checkName('Role', inv.target, name), db };
      const roles = args.roles === undefined ? [] : parseRoles(name, 'roles', args.roles, db);
      if (roles.length === 0)
        throw new CommandError(
          ErrorCode.BadValue,
          `${name} command requires a non-empty "roles" array`,
        );
      requireCustomRole(services, role);
      if (grant) checkSubroles(services, role, roles);
      else requireRolesExist(services, roles);
      await inv.op.access.write((txn) => {
        const current = requireCustomRole(services, role, txn);
        const held = changeRoleList(roleNamesOf(current['roles']), roles, grant);
        replaceAuthDocument(txn, services, rolesCollection, userId(db, role.role), {
          ...current,
          roles: held.map(roleDocument),
        });
      });
      return {};
    },
  }) as CommandDefinition;
}

export const grantRolesToRole = subroleChange('grantRolesToRole', true);
export const revokeRolesFromRole = subroleChange('revokeRolesFromRole', false);

// --- rolesInfo -----------------------------------------------------------------------------

const rolesInfoArgs = {
  showPrivileges: t.any,
  showBuiltinRoles: t.bool,
  showAuthenticationRestrictions: t.bool,
};

function parseRolesInfo(v: BsonValue | undefined, db: string): RoleName[] | 'db' {
  if (numericValue(v) === 1) return 'db';
  const one = (x: BsonValue): RoleName => {
    if (typeof x === 'string') return { role: x, db };
    if (isPlainDocument(x) && typeof x['role'] === 'string' && typeof x['db'] === 'string')
      return { role: x['role'], db: x['db'] };
    throw new CommandError(
      ErrorCode.BadValue,
      'Role names must be either strings or objects of the form {role: "roleName", db: "databaseName"}',
    );
  };
  return Array.isArray(v) ? v.map(one) : [one(v ?? null)];
}

function roleInfo(
  services: ServerServices,
  role: RoleName,
  showPrivileges: boolean,
): BsonDocument | undefined {
  const source = services.auth.roleSource();
  const builtin = isBuiltinRole(role);
  const doc = builtin ? undefined : services.auth.roleDocument(role);
  if (!builtin && doc === undefined) return undefined;
  const direct = builtin ? [] : roleNamesOf(doc?.['roles']);
  const resolved = resolveRoles(builtin ? [role] : direct, source);
  const out: BsonDocument = {};
  if (doc !== undefined) out['_id'] = doc['_id'] ?? null;
  Object.assign(out, {
    role: role.role,
    db: role.db,
    isBuiltin: builtin,
    roles: direct.map(roleDocument),
    inheritedRoles: (builtin ? resolved.inherited : resolved.all).map(roleDocument),
  });
  if (showPrivileges) {
    if (builtin) {
      const own = new PrivilegeSet();
      own.addAll(builtinPrivileges(role) ?? []);
      out['privileges'] = own.toDocuments();
    } else out['privileges'] = doc?.['privileges'] ?? [];
    out['inheritedPrivileges'] = resolveRoles([role], source).privileges.toDocuments();
  }
  return out;
}

function rolesInfoRequirement(input: AuthInput<typeof rolesInfoArgs>): Requirement {
  let sel: RoleName[] | 'db';
  try {
    sel = parseRolesInfo(input.target, input.db);
  } catch {
    return [[privilege(databaseResource(input.db), 'viewRole')]];
  }
  if (sel === 'db') return [[privilege(databaseResource(input.db), 'viewRole')]];
  const held = input.connection.auth.user;
  const own =
    held === undefined ? [] : resolveRoles(held.roles, input.services.auth.roleSource()).all;
  return [
    sel
      .filter((r) => !own.some((o) => sameRole(o, r)))
      .map((r) => privilege(databaseResource(r.db), 'viewRole')),
  ];
}

export const rolesInfo = defineCommand({
  name: 'rolesInfo',
  args: rolesInfoArgs,
  auth: privileges(
    "viewRole on the roles' databases; none for roles one holds",
    rolesInfoRequirement,
  ),
  run: (inv) => {
    const { services, args, db } = inv;
    const sel = parseRolesInfo(inv.target, db);
    const show = args.showPrivileges === true || args.showPrivileges === 'asUserFragment';
    let names: RoleName[];
    if (sel === 'db') {
      names = services.auth
        .documents(rolesCollection, db)
        .map((d) => ({ role: String(d['role']), db }));
      if (args.showBuiltinRoles === true)
        names = [...builtinRoleNames(db).map((r) => ({ role: r, db })), ...names];
    } else names = sel;
    const roles: BsonDocument[] = [];
    for (const n of names) {
      const info = roleInfo(services, n, show);
      if (info !== undefined) roles.push(info);
    }
    return { roles };
  },
});

export const roleCommands: CommandDefinition[] = [
  createRole,
  updateRole,
  dropRole,
  dropAllRolesFromDatabase,
  grantPrivilegesToRole,
  revokePrivilegesFromRole,
  grantRolesToRole,
  revokeRolesFromRole,
  rolesInfo,
] as CommandDefinition[];
