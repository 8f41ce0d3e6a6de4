// Explicit sessions and transactions for the embedded client, following the driver sessions
// and transactions specifications: every command in the session carries its lsid; in a
// transaction it also carries txnNumber and autocommit: false, the first one startTransaction
// and the transaction's readConcern; commit and abort go to admin. withTransaction retries as
// the convenient-API spec says (TransientTransactionError: the whole callback,
// UnknownTransactionCommitResult: the commit), for at most 120 seconds.

import { Long, UUID } from 'mongodb';
import type { Document } from 'mongodb';
import { MongoExpiredSessionError, MongoServerError, MongoTransactionError } from 'mongodb';
import type { ReadConcernLike, TransactionOptions, WriteConcern } from 'mongodb';
import type { Transport } from './transport.js';

type TxnState = 'none' | 'starting' | 'inProgress' | 'committed' | 'committedEmpty' | 'aborted';

/** The convenient transaction API's time limit (transactions spec). */
const withTransactionTimeLimitMs = 120_000;

function hasLabel(e: unknown, label: string): boolean {
  return e instanceof MongoServerError && e.hasErrorLabel(label);
}

function readConcernDocument(rc: ReadConcernLike | undefined): Document | undefined {
  if (rc === undefined) return undefined;
  return typeof rc === 'string' ? { level: rc } : { level: rc.level };
}

function writeConcernDocument(wc: WriteConcern | Document | undefined): Document | undefined {
  if (wc === undefined) return undefined;
  const out: Document = {};
  for (const k of ['w', 'j', 'wtimeout', 'wtimeoutMS']) {
    const v: unknown = (wc as Document)[k];
    if (v !== undefined) out[k === 'wtimeoutMS' ? 'wtimeout' : k] = v;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

export class EmbeddedSession implements AsyncDisposable {
  readonly id: { id: UUID } = { id: new UUID() };
  private txnNumber = 0;
  private state: TxnState = 'none';
  private txnOptions: TransactionOptions = {};
  private ended = false;

  constructor(
    private readonly transport: Transport,
    private readonly defaultTransactionOptions: TransactionOptions = {},
    private readonly onEnd: (s: EmbeddedSession) => void = () => undefined,
  ) {}

  get hasEnded(): boolean {
    return this.ended;
  }

  inTransaction(): boolean {
    return this.state === 'starting' || this.state === 'inProgress';
  }

  /** The fields a command run in this session carries (lsid, and the transaction's). */
  applyTo(command: Document, isGetMore = false): void {
    if (this.ended) throw new MongoExpiredSessionError();
    command['lsid'] = this.id;
    if (!this.inTransaction()) return;
    // Operations in a transaction take the transaction's concerns, never their own.
    delete command['writeConcern'];
    delete command['readConcern'];
    command['txnNumber'] = Long.fromNumber(this.txnNumber);
    command['autocommit'] = false;
    if (this.state === 'starting' && !isGetMore) {
      command['startTransaction'] = true;
      const rc = readConcernDocument(this.txnOptions.readConcern);
      if (rc !== undefined) command['readConcern'] = rc;
      this.state = 'inProgress';
    }
  }

  startTransaction(options: TransactionOptions = {}): void {
    if (this.ended) throw new MongoExpiredSessionError();
    if (this.inTransaction()) throw new MongoTransactionError('Transaction already in progress');
    this.txnNumber++;
    this.txnOptions = { ...this.defaultTransactionOptions, ...options };
    this.state = 'starting';
  }

  async commitTransaction(): Promise<void> {
    if (this.state === 'none') throw new MongoTransactionError('No transaction started');
    if (this.state === 'aborted')
      throw new MongoTransactionError(
        'Cannot call commitTransaction after calling abortTransaction',
      );
    if (this.state === 'starting' || this.state === 'committedEmpty') {
      // Nothing ran: there is nothing on the server to commit.
      this.state = 'committedEmpty';
      return;
    }
    const command: Document = {
      commitTransaction: 1,
      lsid: this.id,
      txnNumber: Long.fromNumber(this.txnNumber),
      autocommit: false,
    };
    const wc = writeConcernDocument(this.txnOptions.writeConcern);
    if (wc !== undefined) command['writeConcern'] = wc;
    if (this.txnOptions.maxCommitTimeMS !== undefined)
      command['maxTimeMS'] = this.txnOptions.maxCommitTimeMS;
    try {
      await this.transport.command('admin', command);
      this.state = 'committed';
    } catch (e) {
      // A commit that may have happened can be retried; one that certainly failed cannot.
      if (!hasLabel(e, 'UnknownTransactionCommitResult')) this.state = 'committed';
      else this.state = 'inProgress';
      throw e;
    }
  }

  async abortTransaction(): Promise<void> {
    if (this.state === 'none') throw new MongoTransactionError('No transaction started');
    if (this.state === 'committed' || this.state === 'committedEmpty')
      throw new MongoTransactionError(
        'Cannot call abortTransaction after calling commitTransaction',
      );
    if (this.state === 'aborted')
      throw new MongoTransactionError('Cannot call abortTransaction twice');
    const ran = this.state === 'inProgress';
    this.state = 'aborted';
    if (!ran) return;
    const command: Document = {
      abortTransaction: 1,
      lsid: this.id,
      txnNumber: Long.fromNumber(this.txnNumber),
      autocommit: false,
    };
    const wc = writeConcernDocument(this.txnOptions.writeConcern);
    if (wc !== undefined) command['writeConcern'] = wc;
    try {
      await this.transport.command('admin', command);
    } catch {
      // The spec: errors of abortTransaction are ignored (the transaction ends on the server).
    }
  }

  /** Run `fn` in a transaction, committing it; retried as the convenient-API spec says. */
  async withTransaction<T>(
    fn: (session: EmbeddedSession) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    const started = Date.now();
    const inTime = (): boolean => Date.now() - started < withTransactionTimeLimitMs;
    for (;;) {
      this.startTransaction(options);
      let result: T;
      try {
        result = await fn(this);
      } catch (e) {
        if (this.inTransaction()) await this.abortTransaction();
        if (hasLabel(e, 'TransientTransactionError') && inTime()) continue;
        throw e;
      }
      // The callback committed or aborted itself.
      if (!this.inTransaction()) return result;
      for (;;) {
        try {
          await this.commitTransaction();
          return result;
        } catch (e) {
          const maxTime = e instanceof MongoServerError && e.codeName === 'MaxTimeMSExpired';
          if (hasLabel(e, 'UnknownTransactionCommitResult') && !maxTime && inTime()) continue;
          if (hasLabel(e, 'TransientTransactionError') && inTime()) break;
          throw e;
        }
      }
    }
  }

  /** End the session: its transaction, if any, is aborted; the server forgets it. */
  async endSession(): Promise<void> {
    if (this.ended) return;
    try {
      if (this.inTransaction()) await this.abortTransaction();
      if (!this.transport.isClosed)
        await this.transport.command('admin', { endSessions: [this.id] }).catch(() => undefined);
    } finally {
      this.ended = true;
      this.onEnd(this);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.endSession();
  }
}

/** The session an operation's options name, if any. */
export interface SessionOption {
  readonly session?: EmbeddedSession | undefined;
}
