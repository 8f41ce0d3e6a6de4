// Privileges (actions on a resource) and the set a user holds. A user's set is computed once
// when the user authenticates (or after a change to users or roles), keyed by resource pattern,
// so the check each command makes is a few Map and Set lookups.

import type { BsonDocument } from '../bson/types.js';
import type { ActionType } from './actions.js';
import type { ResourcePattern } from './resource.js';
import { patternKey, patternToDocument, searchKeys } from './resource.js';

export interface Privilege {
  readonly resource: ResourcePattern;
  readonly actions: readonly ActionType[];
}

export function privilege(resource: ResourcePattern, ...actions: ActionType[]): Privilege {
  return { resource, actions };
}

export class PrivilegeSet {
  private readonly byPattern = new Map<
    string,
    { pattern: ResourcePattern; actions: Set<string> }
  >();

  add(p: Privilege): void {
    const key = patternKey(p.resource);
    let entry = this.byPattern.get(key);
    if (entry === undefined) {
      entry = { pattern: p.resource, actions: new Set() };
      this.byPattern.set(key, entry);
    }
    for (const a of p.actions) entry.actions.add(a);
  }

  addAll(ps: Iterable<Privilege>): void {
    for (const p of ps) this.add(p);
  }

  /** Whether `action` is allowed on `target` by some pattern that matches it. */
  allows(target: ResourcePattern, action: ActionType): boolean {
    for (const key of searchKeys(target)) {
      const set = this.byPattern.get(key)?.actions;
      if (set !== undefined && (set.has(action) || set.has('anyAction'))) return true;
    }
    return false;
  }

  /** Every action of every privilege is allowed. */
  covers(required: readonly Privilege[]): boolean {
    for (const p of required) {
      for (const a of p.actions) if (!this.allows(p.resource, a)) return false;
    }
    return true;
  }

  /** mongod's isAuthorizedForAnyActionOnAnyResourceInDB: something in `db` is allowed. */
  anyInDatabase(db: string): boolean {
    const has = (key: string): boolean => (this.byPattern.get(key)?.actions.size ?? 0) > 0;
    if (has(`db:${db}`) || has('any') || has('buckets') || has(`bucketsdb:${db}`)) return true;
    if (db !== 'local' && db !== 'config' && has('normal')) return true;
    for (const { pattern, actions } of this.byPattern.values()) {
      if (actions.size === 0) continue;
      if (pattern.kind === 'collection' || pattern.kind === 'systemBucketsAnyDatabase') return true;
      if ((pattern.kind === 'namespace' || pattern.kind === 'systemBuckets') && pattern.db === db)
        return true;
    }
    return false;
  }

  /** The privileges as mongod lists them: {resource, actions} with actions sorted. */
  toDocuments(): BsonDocument[] {
    return [...this.byPattern.values()]
      .filter((e) => e.actions.size > 0)
      .map((e) => ({ resource: patternToDocument(e.pattern), actions: [...e.actions].sort() }));
  }

  get size(): number {
    return this.byPattern.size;
  }
}
