// Logical sessions: the server-side state behind a driver's `lsid` — the highest txnNumber
// seen (for retryable writes and transactions), the current multi-document transaction, and
// when it was last used. Sessions expire after logicalSessionTimeoutMinutes of disuse; a
// transaction is aborted after transactionLifetimeLimitSeconds. The durable half (the
// retryable-write ledger and the last txnNumber per session) lives in ./ledger.ts.

import { Binary } from 'bson';
import { createHash } from 'node:crypto';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { decodeDocument, encodeDocument } from '../bson/codec.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { Transaction } from './transaction.js';

export class Session {
  lastUsedMs = Date.now();
  /** Highest txnNumber used on this session (retryable write or transaction); -1: none. */
  txnNumber = -1;
  /** The transaction with the highest number, in whatever state it ended. */
  transaction: Transaction | undefined;
  /** Whether the durable record was read (txnNumber restored after a restart). */
  loaded = false;
  /** The connection that last ran a command in it (currentOp reports it for idle sessions). */
  lastConnectionId: number | undefined;
  /** With access control: the user ("user@db") whose session it is; no other user may use it. */
  owner: string | undefined;

  constructor(
    readonly key: string,
    readonly lsid: BsonDocument,
  ) {}

  /** The bytes of lsid.id, the key of the session's durable records. */
  get keyBytes(): Buffer {
    return Buffer.from(this.key, 'hex');
  }
}

/** The hex key of an lsid (its `id` UUID), validating the shape mongod requires. */
export function parseLsid(lsid: BsonValue): { key: string; lsid: BsonDocument } {
  if (!isPlainDocument(lsid))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'lsid' is the wrong type, expected type 'object'",
    );
  const id = lsid['id'];
  if (!(id instanceof Binary) || id.sub_type !== Binary.SUBTYPE_UUID || id.position !== 16) {
    throw new CommandError(ErrorCode.InvalidUUID, "BSON field 'lsid.id' must be a UUID");
  }
  return { key: Buffer.from(id.buffer.subarray(0, 16)).toString('hex'), lsid };
}

/** The key a session is known by (the hex of its lsid.id UUID), or undefined for a malformed lsid. */
export function sessionKeyOf(lsid: BsonValue | undefined): string | undefined {
  try {
    return lsid === undefined ? undefined : parseLsid(lsid).key;
  } catch {
    return undefined;
  }
}

/**
 * mongod's user digest of a session (lsid.uid): SHA-256 of "user@db", or of nothing for the
 * unauthenticated user — every session here, as this server has no authentication.
 */
export function sessionUserDigest(user?: { readonly user: string; readonly db: string }): Buffer {
  const hash = createHash('sha256');
  if (user !== undefined) hash.update(`${user.user}@${user.db}`);
  return hash.digest();
}

/** An lsid as mongod reports it: its id, and the uid of the (anonymous) user. */
export function lsidWithUid(lsid: BsonDocument): BsonDocument {
  return { id: lsid['id'] ?? null, uid: new Binary(sessionUserDigest(), 0) };
}

export interface SessionHooks {
  /** A session expired or was ended: close what it owns. */
  onSessionGone(session: Session): void;
}

export class SessionCatalog {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly hooks: SessionHooks) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session for an lsid, created on first use. */
  acquire(lsidValue: BsonValue): Session {
    const { key, lsid } = parseLsid(lsidValue);
    let s = this.sessions.get(key);
    if (s === undefined) {
      if (this.sessions.size >= limits.logicalSessionsMax) {
        throw new CommandError(
          ErrorCode.TooManyLogicalSessions,
          `Unable to add session into the cache because the number of active sessions is too high`,
        );
      }
      // A copy of its own: a decoded UUID is a view of the command's bytes, and the session
      // would keep the whole message alive for as long as it lives.
      s = new Session(key, decodeDocument(encodeDocument(lsid)));
      this.sessions.set(key, s);
    }
    s.lastUsedMs = Date.now();
    return s;
  }

  peek(key: string): Session | undefined {
    return this.sessions.get(key);
  }

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /** End a session: abort its open transaction, close its cursors, forget it. */
  end(key: string): boolean {
    const s = this.sessions.get(key);
    if (s === undefined) return false;
    this.sessions.delete(key);
    s.transaction?.abort();
    this.hooks.onSessionGone(s);
    return true;
  }

  endAll(): void {
    for (const key of [...this.sessions.keys()]) this.end(key);
  }

  /**
   * Expire idle sessions and abort transactions past their lifetime. Returns how many of
   * each were ended.
   */
  reap(
    nowMs: number,
    sessionTimeoutMs: number,
    transactionLifetimeMs: number,
  ): { sessions: number; transactions: number } {
    let sessions = 0;
    let transactions = 0;
    for (const s of [...this.sessions.values()]) {
      const t = s.transaction;
      if (
        t !== undefined &&
        t.state === 'inProgress' &&
        nowMs - t.startedAtMs > transactionLifetimeMs
      ) {
        t.abort();
        transactions++;
      }
      if (
        nowMs - s.lastUsedMs > sessionTimeoutMs &&
        (t === undefined || t.state !== 'inProgress')
      ) {
        this.end(s.key);
        sessions++;
      }
    }
    return { sessions, transactions };
  }
}
