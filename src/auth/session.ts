// The access-control state of one client connection: who it authenticated as (with the
// privileges computed for that user) and the SASL conversation in progress, if any.

import type { RoleName } from './builtin-roles.js';
import type { PrivilegeSet } from './privileges.js';
import type { ScramServer } from './scram.js';

export interface AuthenticatedUser {
  readonly user: string;
  readonly db: string;
  /** The roles granted to the user directly. */
  readonly roles: readonly RoleName[];
  /** Every privilege of every role the user holds, directly or through other roles. */
  readonly privileges: PrivilegeSet;
  /** The users-and-roles version these were computed at; a change recomputes them. */
  readonly generation: number;
}

export interface SaslConversation {
  /** The database the user is authenticated against (the command's $db). */
  readonly db: string;
  readonly scram: ScramServer;
  /** options.skipEmptyExchange: the conversation ends with the server's final message. */
  readonly skipEmptyExchange: boolean;
}

export class ConnectionAuth {
  user: AuthenticatedUser | undefined;
  conversation: SaslConversation | undefined;

  constructor(
    /** The client connected over a loopback address (the localhost exception applies). */
    readonly loopback: boolean,
  ) {}
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
