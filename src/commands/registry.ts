// The command table. Each command is declared once — name, aliases, arguments, traits and
// its run function — and registered in one list (commands/all.ts) that also feeds
// listCommands.

import type { BsonDocument } from '../bson/types.js';
import type { ArgSpec, GenericArgs, ParsedArgs } from './args.js';
import type { ConnectionState, OperationContext, ServerServices } from './context.js';
import type { Privilege } from '../auth/privileges.js';

/** The Stable API versions: "1", and "2" for mongod's API test commands only. */
export type ApiVersion = '1' | '2';

export interface CommandTraits {
  /** Writes data: counted in opcounters and subject to write concern. */
  readonly isWrite?: boolean;
  /** Accepts readConcern {level: "snapshot"} outside a transaction. */
  readonly snapshotReads?: boolean;
  /** Accepts a txnNumber outside a transaction: a retryable write. */
  readonly retryableWrite?: boolean;
  /** May run inside a multi-document transaction. */
  readonly allowedInTransaction?: boolean;
  /** Only on the admin database. */
  readonly adminOnly?: boolean;
  /** Needs `enableTestCommands`. */
  readonly testOnly?: boolean;
  /** Part of the Stable API v1. */
  readonly apiVersion1?: boolean;
  /** Part of API Version 2, which only mongod's test commands are in (acceptApiVersion2). */
  readonly apiVersion2?: boolean;
  /** The API versions in which the command is deprecated (apiDeprecationErrors refuses it). */
  readonly apiDeprecatedIn?: readonly ApiVersion[];
  /** Which opcounter to bump instead of `command` ('bulkWrite': its updates and deletes). */
  readonly counter?: 'insert' | 'query' | 'update' | 'delete' | 'getmore' | 'bulkWrite';
}

/** A parsed request: what both a command's access declaration and its run function see. */
export interface CommandRequest<S extends ArgSpec = ArgSpec> {
  readonly services: ServerServices;
  readonly connection: ConnectionState;
  readonly db: string;
  /** The command's own field value (`find: "coll"` → "coll"). */
  readonly target: BsonDocument[string];
  readonly body: BsonDocument;
  readonly args: ParsedArgs<S> & GenericArgs;
  readonly name: string;
}

export interface Invocation<S extends ArgSpec> extends CommandRequest<S> {
  readonly op: OperationContext;
}

/** What a command's privilege declaration sees: the request, parsed, before anything runs. */
export interface AuthInput<S extends ArgSpec = ArgSpec> extends CommandRequest<S> {
  /** The requirement of another command body (explain's inner command). */
  requirementOf(body: BsonDocument, db: string): Requirement;
}

/**
 * What a command needs: any one of the alternatives, each a list of privileges that must all be
 * held. `[[]]` needs nothing but an authenticated user; `[]` can never be met.
 */
export type Requirement = readonly (readonly Privilege[])[];

/**
 * A command's access control, declared beside it (mongod's requiresAuth and
 * addRequiredPrivileges / doCheckAuthorization). Required on every command, so a new command
 * cannot leave it out; helpers are in commands/authorization.ts.
 */
export type CommandAuth<S extends ArgSpec = ArgSpec> =
  | {
      /** Runs before authentication: the handshake allowlist (mongod's requiresAuth() false). */
      readonly requiresAuth: false;
    }
  | {
      readonly requiresAuth?: true;
      /** The privileges the request needs, from its fields (checked before it runs). */
      required(input: AuthInput<S>): Requirement;
      /** What mongod's documentation says the check is, for listCommands and the docs. */
      readonly summary: string;
    };

export interface CommandDefinition<S extends ArgSpec = ArgSpec> {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly args: S;
  /** Access control: who may run it, with which privileges (see CommandAuth). */
  readonly auth: CommandAuth<NoInfer<S>>;
  readonly traits?: CommandTraits;
  /**
   * false: fields the command does not declare are accepted and ignored (mongod's IDL
   * `strict: false`, as for hello, whose handshake fields grow with every driver release).
   */
  readonly strict?: boolean;
  readonly help?: string;
  run(inv: Invocation<S>): Promise<BsonDocument> | BsonDocument;
}

/** Identity function that lets TypeScript infer a command's argument types from its spec. */
export function defineCommand<S extends ArgSpec>(def: CommandDefinition<S>): CommandDefinition<S> {
  return def;
}

export class CommandRegistry {
  private readonly byName = new Map<string, CommandDefinition>();
  private readonly primary: CommandDefinition[] = [];

  constructor(defs: readonly CommandDefinition[]) {
    for (const def of defs) {
      this.primary.push(def);
      for (const name of [def.name, ...(def.aliases ?? [])]) {
        if (this.byName.has(name)) throw new Error(`command ${name} registered twice`);
        this.byName.set(name, def);
      }
    }
  }

  get(name: string): CommandDefinition | undefined {
    return this.byName.get(name);
  }

  definitions(): readonly CommandDefinition[] {
    return this.primary;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}
