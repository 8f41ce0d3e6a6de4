// One client connection: frames in, one request at a time, replies out in order.
// Framing faults (bad length, unknown opcode, bad checksum, malformed envelope) close the
// connection, as mongod does; a bad command body gets an error reply. Reading pauses while
// a request runs, so a client cannot queue unbounded work. A compressed request (OP_COMPRESSED)
// is inflated under the same limits and answered with the compressor it came with; plain
// requests never touch the compression code.
// Deadlines: a message must arrive whole within frameMs of its first byte, and a new
// connection must send its first message within firstMessageMs; otherwise the connection is
// closed and logged. An established connection may stay idle (drivers pool connections).

import type { Socket } from 'node:net';
import { Long } from 'bson';
import { getOwn, setOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import type { ConnectionState, TlsPeerState } from '../commands/context.js';
import type { Dispatcher } from '../commands/dispatch.js';
import { errorReply } from '../commands/dispatch.js';
import { CommandError, ErrorCode, isCommandError } from '../errors.js';
import type { Logger } from '../log.js';
import { compressMessage, decompressMessage } from '../wire/compression.js';
import type { CompressorSet, MessageCodec } from '../wire/compression.js';
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

/**
 * Encode a reply, checked as an input would be: nested too deep, larger than the internal
 * document limit, or not encodable at all (a NUL in a field name), it is replaced by the
 * error mongod would send, and the connection stays open. `framing` is how many bytes of the
 * encoded message are not the reply document (0 when `encode` makes the document alone).
 */
export function encodeCheckedReply<T extends Uint8Array>(
  reply: BsonDocument,
  encode: (body: BsonDocument) => T,
  framing: (encoded: T) => number,
  logger: Logger,
  connectionId: number,
): T {
  try {
    checkOutgoingDocument(reply, limits.commandDepthMax + limits.replyEnvelopeDepthLevels);
    const out = encode(reply);
    const size = out.length - framing(out);
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
    logger.warn('NETWORK', 7_360_101, 'Reply refused', {
      connectionId,
      error: err.message,
    });
    return encode(errorReply(err));
  }
}

/** The commands that stream under exhaustAllowed, as in mongod. */
type ExhaustKind = 'hello' | 'getMore';

function exhaustKind(body: BsonDocument): ExhaustKind | undefined {
  const name = Object.keys(body)[0];
  if (name === 'hello' || name === 'isMaster' || name === 'ismaster') return 'hello';
  if (name === 'getMore') return 'getMore';
  return undefined;
}

function exhaustHelloNeedsAwait(): CommandError {
  return new CommandError(
    ErrorCode.Location51756,
    "An isMaster or hello request with exhaust must specify 'maxAwaitTimeMS'",
  );
}

/** A stream goes on after a successful reply; a getMore's ends with its cursor. */
function exhaustContinues(kind: ExhaustKind, reply: BsonDocument): boolean {
  if (numericValue(getOwn(reply, 'ok')) !== 1) return false;
  if (kind === 'hello') return true;
  const cursor = getOwn(reply, 'cursor');
  if (!isPlainDocument(cursor)) return false;
  const id = getOwn(cursor, 'id');
  return id instanceof Long ? !id.isZero() : numericValue(id) !== 0;
}

/** The next hello of a stream waits on the topologyVersion the last reply reported. */
function nextHello(body: BsonDocument, reply: BsonDocument): BsonDocument {
  const tv = getOwn(reply, 'topologyVersion');
  if (tv === undefined) return body;
  const next: BsonDocument = {};
  for (const key of Object.keys(body))
    setOwn(next, key, key === 'topologyVersion' ? tv : getOwn(body, key));
  return next;
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

/**
 * Commands whose requests and replies are never compressed (the wire compression spec's
 * list): a reply to one of them goes back plain even when its request came compressed.
 */
const neverCompressed = new Set(
  [
    'hello',
    'isMaster',
    'saslStart',
    'saslContinue',
    'getnonce',
    'authenticate',
    'createUser',
    'updateUser',
    'copydbSaslStart',
    'copydbgetnonce',
    'copydb',
  ].map((n) => n.toLowerCase()),
);

/** A message at least this large gives the event loop back between decoding and running. */
const yieldAfterDecodingBytes = 1024 * 1024;

function commandName(body: BsonDocument): string {
  for (const k in body) return k.toLowerCase();
  return '';
}

/** How a connection's bytes travel: the compressors it accepts, its TLS session if any. */
export interface ConnectionTransport {
  readonly compressors: CompressorSet;
  readonly tls: TlsPeerState | undefined;
  /** The TCP socket under a TLS one (addresses are read from it). */
  readonly raw?: Socket;
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
  /** Shutting down: an exhaust stream sends its current reply as the last one. */
  private finishing = false;

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    private readonly onClose: (c: Connection) => void,
    private readonly transport: ConnectionTransport,
    private readonly deadlines: ConnectionDeadlines,
    /** serverStatus network counters (bytesIn, bytesOut, numRequests). */
    private readonly network: { bytesIn: number; bytesOut: number; numRequests: number } = {
      bytesIn: 0,
      bytesOut: 0,
      numRequests: 0,
    },
  ) {
    const tcp = transport.raw ?? socket;
    this.state = {
      id,
      remote: `${tcp.remoteAddress ?? '?'}:${tcp.remotePort ?? 0}`,
      local: `${tcp.localAddress ?? '?'}:${tcp.localPort ?? 0}`,
      clientMetadata: undefined,
      appName: undefined,
      auth: new ConnectionAuth(isLoopbackAddress(tcp.remoteAddress)),

      ...(transport.tls === undefined ? {} : { tls: transport.tls }),
    };
    tcp.setNoDelay(true);
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
    this.network.bytesIn += data.length;
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
    this.finishing = true;
    this.queue = [];
    this.socket.pause();
    await Promise.race([this.inFlight, new Promise((r) => setTimeout(r, waitMs).unref())]);
    this.close('server shutting down');
  }

  private async handle(frame: Buffer): Promise<void> {
    this.network.numRequests++;
    try {
      let header = readHeader(frame);
      let codec: MessageCodec | undefined;
      if (header.opCode === OpCode.compressed) {
        ({ message: frame, codec } = await decompressMessage(frame, this.transport.compressors));
        header = readHeader(frame);
      }
      if (header.opCode === OpCode.msg) {
        await this.handleOpMsg(frame, header.requestId, codec);
      } else if (header.opCode === OpCode.query) {
        await this.handleOpQuery(frame, header.requestId, codec);
      } else {
        throw new ProtocolError(`unsupported opcode ${header.opCode}`);
      }
    } catch (e) {
      this.protocolFault(e);
    }
  }

  private async handleOpMsg(
    frame: Buffer,
    requestId: number,
    codec: MessageCodec | undefined,
  ): Promise<void> {
    let body: BsonDocument;
    let moreToCome = false;
    let exhaustAllowed = false;
    try {
      const msg = parseOpMsg(frame, requestId);
      body = msg.body;
      moreToCome = msg.moreToCome;
      exhaustAllowed = msg.exhaustAllowed;
    } catch (e) {
      if (!isCommandError(e)) throw e;
      // Unreadable BSON: the envelope was sound, so answer with the error and stay open.
      const flags = frame.length >= 20 ? frame.readUInt32LE(16) : 0;
      if ((flags & OpMsgFlags.moreToCome) === 0)
        await this.reply(
          this.encodeReply(errorReply(e), (b) => encodeOpMsg(b, newRequestId(), requestId)),
          codec,
        );
      return;
    }
    if (codec !== undefined) codec = this.replyCodec(codec, body);
    // Decoding a large message held the event loop for a while (~10 ms for 16 MiB): other
    // clients go first before the command runs, so the two stretches do not add up.
    if (frame.length >= yieldAfterDecodingBytes) await new Promise((r) => setImmediate(r));
    const kind = exhaustAllowed && !moreToCome ? exhaustKind(body) : undefined;
    if (kind !== undefined) {
      await this.streamExhaust(kind, body, requestId);
      return;
    }
    const result = await this.dispatcher.dispatch(this.state, body);
    if (result.closeConnection === true) {
      this.close('failpoint closeConnection');
      return;
    }
    if (moreToCome) return; // unacknowledged (w: 0): no reply
    await this.reply(
      this.encodeReply(result.reply, (b) => encodeOpMsg(b, newRequestId(), requestId)),
      codec,
    );
  }

  /**
   * The compressor a reply to this compressed request uses: the request's, unless the command
   * is one whose messages are never compressed. SASL over OP_COMPRESSED is logged as mongod
   * logs it.
   */
  private replyCodec(codec: MessageCodec, body: BsonDocument): MessageCodec | undefined {
    const name = commandName(body);
    if (!neverCompressed.has(name)) return codec;
    if (name === 'saslstart' || name === 'saslcontinue') {
      this.logger.warn(
        'ACCESS',
        6697500,
        'SASL commands should not be run over the OP_COMPRESSED message type. This invocation may have security implications.',
        { connectionId: this.state.id },
      );
    }
    return undefined;
  }

  /**
   * Exhaust (exhaustAllowed on hello or getMore): each reply goes out with moreToCome and the
   * server runs the command again by itself, answering the previous reply (its responseTo),
   * until a reply ends the stream: an error, a getMore whose cursor is exhausted, or the
   * connection or server closing. The socket reads on meanwhile, so a client that goes away
   * is noticed (and its waiting hello ends) instead of being found at the next write.
   */
  private async streamExhaust(
    kind: ExhaustKind,
    first: BsonDocument,
    requestId: number,
  ): Promise<void> {
    this.socket.resume();
    try {
      let body = first;
      let responseTo = requestId;
      for (;;) {
        const result =
          kind === 'hello' && getOwn(body, 'maxAwaitTimeMS') === undefined
            ? { reply: errorReply(exhaustHelloNeedsAwait()) }
            : await this.dispatcher.dispatch(this.state, body);
        if (result.closeConnection === true) {
          this.close('failpoint closeConnection');
          return;
        }
        const more = !this.closed && !this.finishing && exhaustContinues(kind, result.reply);
        const id = newRequestId();
        this.send(
          this.encodeReply(result.reply, (b) =>
            encodeOpMsg(b, id, responseTo, more ? OpMsgFlags.moreToCome : 0),
          ),
        );
        if (!more) return;
        responseTo = id;
        body = kind === 'hello' ? nextHello(body, result.reply) : body;
      }
    } finally {
      if (!this.closed) this.socket.pause();
    }
  }

  private async handleOpQuery(
    frame: Buffer,
    requestId: number,
    codec: MessageCodec | undefined,
  ): Promise<void> {
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
      await this.reply(encodeOpReply(errorReply(err), newRequestId(), requestId), codec);
      return;
    }
    const result = await this.dispatcher.dispatch(this.state, cmd, db);
    if (result.closeConnection === true) {
      this.close('failpoint closeConnection');
      return;
    }
    // hello / isMaster: never compressed.
    this.send(this.encodeReply(result.reply, (b) => encodeOpReply(b, newRequestId(), requestId)));
  }

  private encodeReply(reply: BsonDocument, encode: (body: BsonDocument) => Buffer): Buffer {
    return encodeCheckedReply(reply, encode, replyFramingBytes, this.logger, this.state.id);
  }

  private async reply(message: Buffer, codec: MessageCodec | undefined): Promise<void> {
    this.send(
      codec === undefined
        ? message
        : await compressMessage(message, codec, this.transport.compressors),
    );
  }

  private send(buf: Buffer): void {
    if (this.closed) return;
    this.network.bytesOut += buf.length;
    this.socket.write(buf);
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
    this.logger.debug2('NETWORK', 22989, 'Session ended', {
      connectionId: this.state.id,
      reason,
    });
    this.onClose(this);
  }
}
