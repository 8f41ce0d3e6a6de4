// An in-process client connection (secantusdb/embedded): a command arrives as the encoded
// BSON of an OP_MSG body (with $db) and its reply leaves encoded the same way, with no socket,
// framing or compression between. The bytes are decoded and the reply checked exactly as a
// socket connection does (invalid BSON, duplicate fields, nesting and size of the reply), so
// a client in process sees what a driver would. One request at a time, in order, as on a
// socket: a second request waits for the first.

import type { ConnectionState } from '../commands/context.js';
import type { Dispatcher } from '../commands/dispatch.js';
import { errorReply } from '../commands/dispatch.js';
import { encodeDocument } from '../bson/codec.js';
import { CommandError, ErrorCode, isCommandError } from '../errors.js';
import type { Logger } from '../log.js';
import { ConnectionAuth } from '../auth/session.js';
import { decodeBsonOrFail, refuseDuplicateFields } from '../wire/op-msg.js';
import { encodeCheckedReply } from './connection.js';

export class InProcessConnection {
  readonly state: ConnectionState;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    id: number,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    private readonly onClose: (c: InProcessConnection) => void,
  ) {
    this.state = {
      id,
      remote: 'embedded',
      local: 'embedded',
      clientMetadata: undefined,
      appName: undefined,
      // The process that opened the data is its own local client (the localhost exception).
      auth: new ConnectionAuth(true),
    };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Run one command (an encoded body naming its database in $db); the encoded reply. */
  run(body: Uint8Array): Promise<Uint8Array> {
    const next = this.tail.then(() => this.handle(body));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async handle(bytes: Uint8Array): Promise<Uint8Array> {
    if (this.closed)
      return encodeDocument(
        errorReply(new CommandError(ErrorCode.ClientDisconnect, 'the embedded client is closed')),
      );
    let reply;
    try {
      const body = decodeBsonOrFail(bytes);
      refuseDuplicateFields(body, bytes);
      reply = (await this.dispatcher.dispatch(this.state, body)).reply;
    } catch (e) {
      if (!isCommandError(e)) throw e;
      reply = errorReply(e);
    }
    return encodeCheckedReply(reply, encodeDocument, () => 0, this.logger, this.state.id);
  }

  /** Let the request running finish (bounded by `waitMs`), then close. */
  async finishAndClose(waitMs: number): Promise<void> {
    await Promise.race([this.tail, new Promise((r) => setTimeout(r, waitMs).unref())]);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}
