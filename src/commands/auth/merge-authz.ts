// _mergeAuthzCollections: how mongorestore puts users and roles back. The restore writes the
// dumped admin.system.users / admin.system.roles documents into temporary collections
// (admin.tempusers, admin.temproles), then asks the server to merge them into the real ones:
//
// - `drop: false`: every user (role) of the temporary collection that does not exist yet is
//   added; one that exists is left as it is;
// - `drop: true`: the users (roles) in scope become exactly those of the temporary
//   collection: existing ones are replaced, those absent from it are removed;
// - `db: ""` puts every database in scope, `db: "x"` only the users and roles defined on x.
//
// All of it in one storage transaction, so a failure leaves the users and roles as they were.

import type { BsonDocument } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import type { ActionType } from '../../auth/actions.js';
import { privilege } from '../../auth/privileges.js';
import { anyNormalResource, namespaceResource } from '../../auth/resource.js';
import type { WriteTxn } from '../../storage/engine.js';
import { t } from '../args.js';
import { privileges } from '../authorization.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { deleteAuthDocuments, insertAuthDocument, replaceAuthDocument } from './common.js';
import { rolesCollection, usersCollection, userId } from './service.js';

const command = '_mergeAuthzCollections';

/** "admin.tempusers" → its collection in admin (mongod accepts temporary collections there only). */
function tempCollection(field: string, v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  const dot = v.indexOf('.');
  if (dot <= 0 || dot === v.length - 1)
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace for ${field}: ${v}`);
  if (v.slice(0, dot) !== 'admin')
    throw new CommandError(
      ErrorCode.BadValue,
      `${field} must be a collection of the admin database, not ${v}`,
    );
  return v.slice(dot + 1);
}

function requiredActions(drop: boolean): ActionType[] {
  const actions: ActionType[] = ['createUser', 'createRole', 'grantRole', 'revokeRole'];
  if (drop) actions.push('dropUser', 'dropRole');
  return actions;
}

interface Kind {
  readonly target: typeof usersCollection | typeof rolesCollection;
  /** The name field of a document: `user` or `role`. */
  readonly nameField: 'user' | 'role';
}

const USERS: Kind = { target: usersCollection, nameField: 'user' };
const ROLES: Kind = { target: rolesCollection, nameField: 'role' };

/** The temporary collection's documents, each checked to be a user (role) document. */
function readTemp(
  services: ServerServices,
  txn: WriteTxn,
  temp: string,
  kind: Kind,
): BsonDocument[] {
  const coll = services.catalog.get('admin', temp);
  if (coll === undefined) return [];
  const out: BsonDocument[] = [];
  for (const r of coll.scanRecords(txn)) {
    const name = r.doc[kind.nameField];
    const db = r.doc['db'];
    if (typeof name !== 'string' || typeof db !== 'string')
      throw new CommandError(
        ErrorCode.BadValue,
        `${command}: a document of admin.${temp} has no string "${kind.nameField}" and "db" fields: not a ${kind.nameField} document`,
      );
    // The _id is what identifies it in system.users / system.roles; rebuild it from the fields.
    out.push({ ...r.doc, _id: userId(db, name) });
  }
  return out;
}

function merge(
  services: ServerServices,
  txn: WriteTxn,
  temp: string,
  kind: Kind,
  scope: string,
  drop: boolean,
): void {
  const inScope = (doc: BsonDocument): boolean => scope === '' || doc['db'] === scope;
  const incoming = readTemp(services, txn, temp, kind).filter(inScope);
  const ids = new Set(incoming.map((d) => String(d['_id'])));
  if (drop)
    deleteAuthDocuments(
      txn,
      services,
      kind.target,
      (d) => inScope(d) && !ids.has(String(d['_id'])),
    );
  const existing = services.catalog.get('admin', kind.target);
  for (const doc of incoming) {
    const id = String(doc['_id']);
    // With drop, replace it where it exists; without, leave an existing one as it is.
    const kept = drop
      ? replaceAuthDocument(txn, services, kind.target, id, doc)
      : existing?.findById(txn, id) !== undefined;
    if (!kept) insertAuthDocument(txn, services, kind.target, doc);
  }
}

export const mergeAuthzCollections = defineCommand({
  name: command,
  args: {
    tempUsersCollection: t.string,
    tempRolesCollection: t.string,
    db: t.string,
    drop: t.bool,
  },
  traits: { adminOnly: true, isWrite: true },
  auth: privileges(
    'createUser, createRole, grantRole, revokeRole (and dropUser, dropRole with drop) on any normal resource; find on the temporary collections',
    (input) => {
      const drop = input.args.drop === true;
      const reads = [input.args.tempUsersCollection, input.args.tempRolesCollection]
        .filter((v): v is string => typeof v === 'string' && v.includes('.'))
        .map((v) =>
          privilege(
            namespaceResource(v.slice(0, v.indexOf('.')), v.slice(v.indexOf('.') + 1)),
            'find',
          ),
        );
      return [[privilege(anyNormalResource, ...requiredActions(drop)), ...reads]];
    },
  ),
  run: async (inv) => {
    const { services, args } = inv;
    const users = tempCollection('tempUsersCollection', args.tempUsersCollection);
    const roles = tempCollection('tempRolesCollection', args.tempRolesCollection);
    if (users === undefined && roles === undefined)
      throw new CommandError(
        ErrorCode.BadValue,
        'Must provide at least one of "tempUsersCollection" and "tempRolescollection"',
      );
    if (args.db === undefined) throw missingFieldError(`${command}.db`);
    const scope = args.db;
    const drop = args.drop === true;
    await inv.op.access.write((txn) => {
      if (users !== undefined) merge(services, txn, users, USERS, scope, drop);
      if (roles !== undefined) merge(services, txn, roles, ROLES, scope, drop);
    });
    return {};
  },
});

export const mergeAuthzCommands: CommandDefinition[] = [mergeAuthzCollections];
