// One client connection: frames in, one request at a time, replies out in order.
// Framing faults (bad length, unknown opcode, bad checksum, malformed envelope) close the
// connection, as mongod does; a bad command body gets an error reply. Reading pauses while
// a request runs, so a client cannot queue unbounded work.
// Deadlines: a message must arrive whole within frameMs of its first byte, and a new
// connection must send its first message within firstMessageMs; otherwise the connection is
// closed and logged. An established connection may stay idle (drivers pool connections).

import type { Socket } from 'node:net';
import type { BsonDocument } from '../bson/types.js';
import type { ConnectionState } from '../commands/context.js';
import type { Dispatcher } from '../commands/dispatch.js';
import { errorReply } from '../commands/dispatch.js';
import { CommandError, ErrorCode, isCommandError } from '../errors.js';
import type { Logger } from '../log.js';
import { FrameReader } from '../wire/frame-reader.js';
import { encodeOpMsg, OpMsgFlags, parseOpMsg } from '../wire/op-msg.js';
import { encodeOpReply, parseOpQuery } from '../wire/op-query.js';
import { OpCode, ProtocolError, readHeader } from '../wire/opcodes.js';
import { ConnectionAuth, isLoopbackAddress } from '../auth/session.js';
import {
  checkOutgoingDocument,
  documentTooLargeError,
  internalDocumentBytesMax,
} from '../bson/outgoing.js';
import { limits } from '../limits.js';
import { bsonSize } from '../bson/codec.js';

/** Bytes of a reply message before its body document: header, flags and section kind, or OP_REPLY's fields. */
function replyFramingBytes(msg: Buffer): number {
  return msg.readInt32LE(12) === OpCode.reply ? 36 : 21;
}

/** The encoder failed: BSONObjectTooLarge when that is why (it may fail past 16 MiB). */
function oversize(reply: BsonDocument): CommandError | undefined {
  try {
    const size = bsonSize(reply);
    return size > internalDocumentBytesMax ? documentTooLargeError(reply, size) : undefined;
  } catch {
    return undefined;
  }
}

let nextRequestId = 1;
function newRequestId(): number {
  nextRequestId = (nextRequestId % 0x7fffffff) + 1;
  return nextRequestId;
}

/** How long a client may take to send (limits.frameReceiveTimeMsMax, firstMessageWaitMsMax). */
export interface ConnectionDeadlines {
  readonly frameMs: number;
  readonly firstMessageMs: number;
}

export class Connection {
  readonly state: ConnectionState;
  /** The deadline running: the first message's, or the current message's completion. */
  private timer: NodeJS.Timeout | undefined;
  private sawMessage = false;
  private readonly reader = new FrameReader();
  private queue: Buffer[] = [];
  private busy = false;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    private readonly onClose: (c: Connection) => void,
    private readonly deadlines: ConnectionDeadlines,
  ) {
    this.state = {
      id,
      remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`,
      local: `${socket.localAddress ?? '?'}:${socket.localPort ?? 0}`,
      clientMetadata: undefined,
      appName: undefined,
      auth: new ConnectionAuth(isLoopbackAddress(socket.remoteAddress)),
    };
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.onData(data));
    socket.on('error', () => this.close('socket error'));
    socket.on('close', () => this.close('closed by peer'));
    this.arm(deadlines.firstMessageMs, 'no message received from the client');
  }

  private arm(ms: number, what: string): void {
    this.disarm();
    this.timer = setTimeout(() => this.timedOut(ms, what), ms);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** After bytes arrived or reading resumed: time the message under way, if any. */
  private rearm(): void {
    if (this.closed || this.busy) return;
    // Before the first message the first-message deadline runs on; after it, a message's
    // deadline starts with its first byte and is not extended by more bytes.
    if (this.reader.pendingBytes > 0) {
      if (this.timer === undefined) this.arm(this.deadlines.frameMs, 'message incomplete');
    } else if (this.sawMessage) this.disarm();
  }

  private timedOut(ms: number, what: string): void {
    this.timer = undefined;
    if (this.closed) return;
    this.logger.warn('NETWORK', 22989, 'Error receiving request from client. Ending connection', {
      connectionId: this.state.id,
      remote: this.state.remote,
      error: `${what} within ${ms} ms`,
      bytesPending: this.reader.pendingBytes,
    });
    this.close('receive deadline');
  }

  private onData(data: Buffer): void {
    if (this.closed) return;
    let frames: Buffer[];
    try {
      frames = this.reader.push(data);
    } catch (e) {
      this.protocolFault(e);
      return;
    }
    if (frames.length === 0) {
      this.rearm();
      return;
    }
    this.sawMessage = true;
    this.disarm();
    this.queue.push(...frames);
    void this.drain();
    this.rearm();
  }

  private inFlight: Promise<void> = Promise.resolve();

  private drain(): Promise<void> {
    if (this.busy) return this.inFlight;
    this.busy = true;
    this.socket.pause();
    this.inFlight = (async () => {
      try {
        while (this.queue.length > 0 && !this.closed) {
          const frame = this.queue.shift() as Buffer;
          await this.handle(frame);
        }
      } finally {
        this.busy = false;
        if (!this.closed) {
          this.socket.resume();
          this.rearm();
        }
      }
    })();
    return this.inFlight;
  }

  /**
   * Shutdown: stop taking requests on this connection and let the one running finish and
   * reply (bounded by `waitMs`), then close.
   */
  async finishAndClose(waitMs: number): Promise<void> {
    this.queue = [];
    this.socket.pause();
    await Promise.race([this.inFlight, new Promise((r) => setTimeout(r, waitMs).unref())]);
    this.close('server shutting down');
  }

  private async handle(frame: Buffer): Promise<void> {
    const header = readHeader(frame);
    try {
      if (header.opCode === OpCode.msg) {
        await this.handleOpMsg(frame, header.requestId);
      } else if (header.opCode === OpCode.query) {
        await this.handleOpQuery(frame, header.requestId);
      } else {
        throw new ProtocolError(`unsupported opcode ${header.opCode}`);
      }
    } catch (e) {
      this.protocolFault(e);
    }
  }

  private async handleOpMsg(frame: Buffer, requestId: number): Promise<void> {
    let body: BsonDocument;
    let moreToCome = false;
    try {
      const msg = parseOpMsg(frame, requestId);
      body = msg.body;
      moreToCome = msg.moreToCome;
    } catch (e) {
      if (!isCommandError(e)) throw e;
      // Unreadable BSON: the envelope was sound, so answer with the error and stay open.
      const flags = frame.length >= 20 ? frame.readUInt32LE(16) : 0;
      if ((flags & OpMsgFlags.moreToCome) === 0)
        this.send(
          this.encodeReply(errorReply(e), (b) => encodeOpMsg(b, newRequestId(), requestId)),
        );
      return;
    }
    const result = await this.dispatcher.dispatch(this.state, body);
    if (result.closeConnection === true) {
      this.close('failpoint closeConnection');
      return;
    }
    if (moreToCome) return; // unacknowledged (w: 0): no reply
    this.send(this.encodeReply(result.reply, (b) => encodeOpMsg(b, newRequestId(), requestId)));
  }

  private async handleOpQuery(frame: Buffer, requestId: number): Promise<void> {
    const q = parseOpQuery(frame, requestId);
    if (!q.fullCollectionName.endsWith('.$cmd')) {
      throw new ProtocolError('OP_QUERY is supported only for commands (the legacy handshake)');
    }
    const db = q.fullCollectionName.slice(0, -'.$cmd'.length);
    // Legacy drivers wrap the command as {$query: {...}, $readPreference: ...}.
    const inner = q.query['$query'];
    const cmd =
      inner !== undefined && typeof inner === 'object' && inner !== null && !Array.isArray(inner)
        ? (inner as BsonDocument)
        : q.query;
    const name = Object.keys(cmd)[0]?.toLowerCase();
    if (name !== 'ismaster' && name !== 'hello') {
      const err = new CommandError(
        ErrorCode.UnsupportedOpQueryCommand,
        `Unsupported OP_QUERY command: ${name ?? ''}. The client driver may require an upgrade.`,
      );
      this.send(encodeOpReply(errorReply(err), newRequestId(), requestId));
      return;
    }
    const result = await this.dispatcher.dispatch(this.state, cmd, db);
    if (result.closeConnection === true) {
      this.close('failpoint closeConnection');
      return;
    }
    this.send(this.encodeReply(result.reply, (b) => encodeOpReply(b, newRequestId(), requestId)));
  }

  /**
   * Encode a reply, checked as an input would be: nested too deep, larger than the internal
   * document limit, or not encodable at all (a NUL in a field name), it is replaced by the
   * error mongod would send, and the connection stays open.
   */
  private encodeReply(reply: BsonDocument, encode: (body: BsonDocument) => Buffer): Buffer {
    try {
      checkOutgoingDocument(reply, limits.commandDepthMax + limits.replyEnvelopeDepthLevels);
      const out = encode(reply);
      const size = out.length - replyFramingBytes(out);
      if (size > internalDocumentBytesMax) throw documentTooLargeError(reply, size);
      return out;
    } catch (e) {
      const err = isCommandError(e)
        ? e
        : (oversize(reply) ??
          new CommandError(
            ErrorCode.InternalError,
            `reply could not be encoded: ${e instanceof Error ? e.message : String(e)}`,
          ));
      this.logger.warn('NETWORK', 7_360_101, 'Reply refused', {
        connectionId: this.state.id,
        error: err.message,
      });
      return encode(errorReply(err));
    }
  }

  private send(buf: Buffer): void {
    if (!this.closed) this.socket.write(buf);
  }

  private protocolFault(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.logger.warn('NETWORK', 22988, 'Closing connection after a protocol error', {
      connectionId: this.state.id,
      error: message,
    });
    this.close('protocol error');
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    this.queue = [];
    this.socket.destroy();
    this.logger.debug('NETWORK', 22944, 'Connection ended', {
      connectionId: this.state.id,
      reason,
    });
    this.onClose(this);
  }
}
