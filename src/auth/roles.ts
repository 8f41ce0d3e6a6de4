// A user's effective rights: its roles, every role they include (built-in or user-defined, any
// depth, cycles ignored), and the union of their privileges, computed once per user version.

import type { RoleName } from './builtin-roles.js';
import { builtinPrivileges, builtinSubroles } from './builtin-roles.js';
import type { Privilege } from './privileges.js';
import { PrivilegeSet } from './privileges.js';

export type { RoleName };

/** A role defined in admin.system.roles. */
export interface CustomRole {
  readonly privileges: readonly Privilege[];
  readonly roles: readonly RoleName[];
}

export interface RoleSource {
  /** The user-defined role of that name, if any. */
  custom(role: RoleName): CustomRole | undefined;
}

export function roleKey(r: RoleName): string {
  return `${r.db}.${r.role}`;
}

export interface ResolvedRoles {
  /** Every role reached from the given ones, the given ones included. */
  readonly all: readonly RoleName[];
  /** The roles reached, without the given ones (mongod's inheritedRoles less the direct ones). */
  readonly inherited: readonly RoleName[];
  readonly privileges: PrivilegeSet;
  /** Roles named but defined nowhere (ignored, as mongod does). */
  readonly missing: readonly RoleName[];
}

/** Walk the role graph from `direct`, breadth first. */
export function resolveRoles(direct: readonly RoleName[], source: RoleSource): ResolvedRoles {
  const privileges = new PrivilegeSet();
  const seen = new Set<string>();
  const all: RoleName[] = [];
  const missing: RoleName[] = [];
  const queue: RoleName[] = [...direct];
  while (queue.length > 0) {
    const role = queue.shift() as RoleName;
    const key = roleKey(role);
    if (seen.has(key)) continue;
    seen.add(key);
    const builtin = builtinPrivileges(role);
    if (builtin !== undefined) {
      all.push(role);
      privileges.addAll(builtin);
      queue.push(...builtinSubroles(role));
      continue;
    }
    const custom = source.custom(role);
    if (custom === undefined) {
      missing.push(role);
      continue;
    }
    all.push(role);
    privileges.addAll(custom.privileges);
    queue.push(...custom.roles);
  }
  const directKeys = new Set(direct.map(roleKey));
  return {
    all,
    inherited: all.filter((r) => !directKeys.has(roleKey(r))),
    privileges,
    missing,
  };
}

/** Whether `target` is reachable from `from` (a grant that would make a cycle). */
export function reaches(from: RoleName, target: RoleName, source: RoleSource): boolean {
  const t = roleKey(target);
  return resolveRoles([from], source).all.some((r) => roleKey(r) === t);
}
