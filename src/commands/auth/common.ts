// Shared by the user and role commands: role lists as mongod accepts them ("name" or
// {role, db}), privilege documents, and the writes to admin.system.users / admin.system.roles
// (through the catalog's write path, so they are logged in the oplog like any write).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { WriteTxn } from '../../storage/engine.js';
import { isActionType } from '../../auth/actions.js';
import type { RoleName } from '../../auth/builtin-roles.js';
import { isBuiltinRole } from '../../auth/builtin-roles.js';
import { patternFromDocument, patternToDocument } from '../../auth/resource.js';
import type { ServerServices } from '../context.js';
import {
  deleteDocument,
  insertDocument,
  internalWrite,
  updateDocument,
} from '../../catalog/write-unit.js';

/** A command's role list: names on the command's database, or {role, db} documents. */
export function parseRoles(command: string, field: string, v: BsonValue, db: string): RoleName[] {
  if (!Array.isArray(v))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(v)}', expected type 'array'`,
    );
  return v.map((r) => {
    if (typeof r === 'string') return { role: r, db };
    if (isPlainDocument(r) && typeof r['role'] === 'string' && typeof r['db'] === 'string')
      return { role: r['role'], db: r['db'] };
    throw new CommandError(
      ErrorCode.BadValue,
      `Role names must be either strings or objects of the form {role: "roleName", db: "databaseName"}`,
    );
  });
}

export function roleDocument(r: RoleName): BsonDocument {
  return { role: r.role, db: r.db };
}

export function sameRole(a: RoleName, b: RoleName): boolean {
  return a.role === b.role && a.db === b.db;
}

/** A role list after granting (adding those not held) or revoking `roles`. */
export function changeRoleList(
  held: readonly RoleName[],
  roles: readonly RoleName[],
  grant: boolean,
): RoleName[] {
  if (!grant) return held.filter((h) => !roles.some((r) => sameRole(h, r)));
  const out = [...held];
  for (const r of roles) if (!out.some((h) => sameRole(h, r))) out.push(r);
  return out;
}

/** A built-in role, or one in admin.system.roles. */
export function roleExists(services: ServerServices, role: RoleName): boolean {
  return isBuiltinRole(role) || services.auth.roleSource().custom(role) !== undefined;
}

export function requireRolesExist(services: ServerServices, roles: readonly RoleName[]): void {
  for (const r of roles) {
    if (!roleExists(services, r))
      throw new CommandError(ErrorCode.RoleNotFound, `Could not find role: ${r.role}@${r.db}`);
  }
}

/** A user or role name: a non-empty string of bounded length without NUL. */
export function checkName(kind: 'User' | 'Role', name: BsonValue, command: string): string {
  if (typeof name !== 'string')
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${command}' is the wrong type '${bsonTypeName(name)}', expected type 'string'`,
    );
  if (name === '') throw new CommandError(ErrorCode.BadValue, `${kind} name must not be empty`);
  if (name.includes('\0'))
    throw new CommandError(ErrorCode.BadValue, `${kind} names must not contain NULL characters`);
  if (Buffer.byteLength(name) > limits.userNameBytesMax)
    throw new CommandError(
      ErrorCode.BadValue,
      `${kind} name is longer than ${limits.userNameBytesMax} bytes`,
    );
  return name;
}

/**
 * Privilege documents as createRole and grantPrivilegesToRole take them, normalised
 * ({resource, actions} with the actions sorted). A role on a database other than admin may only
 * hold privileges on its own database (InvalidRoleModification), as mongod requires.
 */
export function parsePrivileges(command: string, v: BsonValue, role: RoleName): BsonDocument[] {
  if (!Array.isArray(v))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.privileges' is the wrong type '${bsonTypeName(v)}', expected type 'array'`,
    );
  return v.map((p) => {
    if (!isPlainDocument(p))
      throw new CommandError(ErrorCode.FailedToParse, 'Each privilege must be a document');
    const resource = patternFromDocument(p['resource']);
    const actions = p['actions'];
    if (!Array.isArray(actions))
      throw new CommandError(
        ErrorCode.FailedToParse,
        "Privilege document must contain an 'actions' array",
      );
    const names = new Set<string>();
    for (const a of actions) {
      if (typeof a !== 'string' || !isActionType(a))
        throw new CommandError(
          ErrorCode.FailedToParse,
          `Unrecognized action privilege string: ${typeof a === 'string' ? a : bsonTypeName(a)}`,
        );
      names.add(a);
    }
    if (role.db !== 'admin') {
      const own =
        (resource.kind === 'database' || resource.kind === 'namespace') && resource.db === role.db;
      if (!own)
        throw new CommandError(
          ErrorCode.InvalidRoleModification,
          `Roles on the '${role.db}' database cannot be granted privileges that target other databases or the cluster`,
        );
    }
    return { resource: patternToDocument(resource), actions: [...names].sort() };
  });
}

/** The resource's database for grantRole checks ('admin' for cluster-wide resources). */
export function privilegeDatabase(doc: BsonDocument): string {
  const r = doc['resource'];
  return isPlainDocument(r) && typeof r['db'] === 'string' && r['db'] !== '' ? r['db'] : 'admin';
}

export function insertAuthDocument(
  txn: WriteTxn,
  services: ServerServices,
  collection: string,
  doc: BsonDocument,
): void {
  insertDocument(internalWrite(txn, services.catalog), { db: 'admin', name: collection }, doc);
}

/** Replace the document with `_id` (false when there is none). */
export function replaceAuthDocument(
  txn: WriteTxn,
  services: ServerServices,
  collection: string,
  id: string,
  after: BsonDocument,
): boolean {
  const coll = services.catalog.get('admin', collection);
  const record = coll?.findById(txn, id);
  if (coll === undefined || record === undefined) return false;
  updateDocument(internalWrite(txn, services.catalog), coll, record, after, undefined);
  return true;
}

/** Delete the documents `select` picks; returns how many. */
export function deleteAuthDocuments(
  txn: WriteTxn,
  services: ServerServices,
  collection: string,
  select: (doc: BsonDocument) => boolean,
): number {
  const coll = services.catalog.get('admin', collection);
  if (coll === undefined) return 0;
  const doomed = [...coll.scanRecords(txn)].filter((r) => select(r.doc));
  const w = internalWrite(txn, services.catalog);
  for (const r of doomed) deleteDocument(w, coll, r);
  return doomed.length;
}
