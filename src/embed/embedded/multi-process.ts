// open({ dbPath, multiProcess: true }): several processes on one data directory, each with
// the official driver's MongoClient, all talking to ONE secantusd that the first of them
// starts on demand. The LMDB files are not shared between processes directly: the server
// keeps state beside them that lives in one process only (docs/embedded.md says which).
//
// How a process gets its client:
//   1. The daemon of a data directory listens on one Unix domain socket, named after the
//      directory (socketPathFor). A hello sent to it that is answered means a live daemon.
//   2. Otherwise the process spawns a detached `secantusd --dbpath D --unixSocket S
//      --idleShutdownSecs N` (one starter at a time: `secantusd.start.lock`), and waits until
//      the socket answers. The daemon takes `S.lock` first, then the data directory's lock, so
//      of daemons started at once all but one exit (48) before touching the data; a starter
//      whose daemon lost waits for the winner. A daemon refused the data directory (100)
//      means a process that is not a daemon holds it: a clear error.
//   3. The answered probe connection stays open until the driver is connected, so the
//      daemon cannot reach its idle shutdown in between.
// close() on the client closes the client only; the daemon exits once no client has been
// connected for idleShutdownSecs (storage closed, locks released, as on SIGTERM).

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  fstatSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BSON, MongoClient } from 'mongodb';
import type { MongoClientOptions } from 'mongodb';
import { limits } from '../../limits.js';
import { socketOwner } from '../../server/socket-lock.js';
import { DataDirectoryLockedError } from '../../storage/engine.js';
import type { EngineName } from '../../storage/engine.js';
import { DirectoryLock, lockFileName, lockHolder } from '../../storage/lock-file.js';

export interface MultiProcessOptions {
  readonly dbPath: string;
  readonly engine?: EngineName;
  readonly replSet?: string;
  readonly enableTestCommands?: boolean;
  readonly javascriptEnabled?: boolean;
  readonly defaultDbName?: string;
  readonly idleShutdownSecs?: number;
  readonly startTimeoutMs?: number;
  readonly clientOptions?: MongoClientOptions;
}

/** The daemon's log (and its stderr), in the data directory. */
export const daemonLogName = 'secantusd.log';
const startLockName = 'secantusd.start.lock';
const pollMs = 25;

/**
 * The Unix domain socket of the daemon of `realDir` (an absolute, resolved path): inside the
 * data directory when the path is short enough for sun_path, else in the temporary directory
 * under a hash of the data directory's path.
 */
export function socketPathFor(realDir: string): string {
  const inside = join(realDir, 'secantusd.sock');
  if (Buffer.byteLength(inside) <= limits.unixSocketPathBytesMax) return inside;
  const hash = createHash('sha256').update(realDir).digest('hex').slice(0, 24);
  return join(os.tmpdir(), `secantusd-${hash}.sock`);
}

/** A connection string for the daemon listening on `socketPath`. */
export function socketUri(socketPath: string, dbName = ''): string {
  return `mongodb://${encodeURIComponent(socketPath)}/${encodeURIComponent(dbName)}?directConnection=true`;
}

export async function openMultiProcess(o: MultiProcessOptions): Promise<MongoClient> {
  if (process.platform === 'win32')
    throw new Error('open({ multiProcess: true }) needs Unix domain sockets: not on Windows');
  if (typeof o.dbPath !== 'string' || o.dbPath === '')
    throw new TypeError('open({ multiProcess: true }) needs a dbPath');
  if (o.engine === 'memory')
    throw new TypeError(
      "open({ multiProcess: true }) shares a data directory: the 'memory' engine has none",
    );
  const idle = o.idleShutdownSecs ?? limits.onDemandIdleShutdownSecs;
  if (!(typeof idle === 'number' && idle > 0 && idle <= limits.idleShutdownSecsMax))
    throw new RangeError(
      `idleShutdownSecs must be a number of seconds in (0, ${limits.idleShutdownSecsMax}], got ${String(idle)}`,
    );
  const t = o.startTimeoutMs;
  if (t !== undefined && !(typeof t === 'number' && Number.isFinite(t) && t > 0))
    throw new RangeError(`startTimeoutMs must be a positive number of ms, got ${String(t)}`);
  mkdirSync(o.dbPath, { recursive: true });
  const dir = realpathSync(o.dbPath);
  const socketPath = socketPathFor(dir);
  const probe = await reachDaemon(dir, socketPath, { ...o, idleShutdownSecs: idle });
  try {
    const client = new MongoClient(socketUri(socketPath, o.defaultDbName ?? 'test'), {
      ...o.clientOptions,
    });
    await client.connect();
    return client;
  } finally {
    probe.destroy();
  }
}

/** A probe connection answered by the live daemon of `dir`, starting one if there is none. */
async function reachDaemon(
  dir: string,
  socketPath: string,
  o: MultiProcessOptions & { readonly idleShutdownSecs: number },
): Promise<net.Socket> {
  const timeoutMs = o.startTimeoutMs ?? limits.onDemandStartTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  let starting: { child: ChildProcess; lock: DirectoryLock } | undefined;
  let exitCode: number | null | undefined;
  try {
    for (;;) {
      const probe = await hello(socketPath);
      if (probe !== undefined) return probe;
      if (starting !== undefined && exitCode !== undefined) {
        // Our daemon is gone without answering: why decides what next.
        if (exitCode === 100) throw dbPathHeld(dir);
        // 48: another daemon owns the socket (it answers soon, or it is stopping and its
        // lock is freed soon); 0: it went idle before we reached it. Anything else failed.
        if (exitCode !== 48 && exitCode !== 0) throw daemonFailed(dir, exitCode);
        starting.lock.release();
        starting = undefined;
        exitCode = undefined;
      }
      if (starting === undefined && socketOwner(socketPath) === undefined) {
        const lock = tryLock(dir, startLockName);
        if (lock !== undefined) {
          const child = spawnDaemon(dir, socketPath, o);
          child.once('error', () => (exitCode = -1));
          child.once('exit', (code) => (exitCode = code));
          starting = { child, lock };
        }
      }
      if (Date.now() > deadline)
        throw new Error(
          `open({ multiProcess: true }): no secantusd answered on ${socketPath} within ${timeoutMs} ms` +
            logTail(dir),
        );
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    starting?.lock.release();
  }
}

function tryLock(dir: string, name: string): DirectoryLock | undefined {
  try {
    return DirectoryLock.acquire(dir, name);
  } catch (e) {
    if (e instanceof DataDirectoryLockedError) return undefined;
    throw e;
  }
}

function dbPathHeld(dir: string): DataDirectoryLockedError {
  const pid = lockHolder(join(dir, lockFileName));
  const e = new DataDirectoryLockedError(dir, pid);
  e.message =
    `open({ multiProcess: true }): the data directory ${dir} is in use by a process that is not ` +
    `its on-demand daemon${pid === undefined ? '' : ` (pid ${pid})`}: an open() without ` +
    `multiProcess or a secantusd started by hand. Every process sharing a dbPath must open it ` +
    `with multiProcess: true (or connect to that secantusd with the driver).`;
  return e;
}

function daemonFailed(dir: string, code: number | null): Error {
  return new Error(
    `open({ multiProcess: true }): secantusd for ${dir} exited with ${code === null ? 'a signal' : `code ${code}`}` +
      logTail(dir),
  );
}

/** The end of the daemon's log, for an error message. */
function logTail(dir: string): string {
  const file = join(dir, daemonLogName);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, 2048);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    const lines = buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    return `; the end of ${file}:\n${lines.slice(-5).join('\n')}`;
  } finally {
    closeSync(fd);
  }
}

/** secantusd beside this module: dist/src/cli (ES and CommonJS builds) or src/cli (tsx). */
function daemonCommand(): string[] {
  const here = dirname(thisFile());
  for (const rel of ['../../cli/secantusd.js', '../../../src/cli/secantusd.js']) {
    const js = join(here, rel);
    if (existsSync(js)) return [js];
  }
  const ts = join(here, '../../cli/secantusd.ts');
  if (existsSync(ts)) {
    const tsx = createRequire(join(here, 'x.js')).resolve('tsx');
    return ['--import', pathToFileURL(tsx).href, ts];
  }
  throw new Error(`open({ multiProcess: true }): secantusd not found beside ${here}`);
}

/**
 * This module's file, in both builds (import.meta does not exist in the CommonJS one): the
 * file name of the first frame of a stack trace taken here.
 */
function thisFile(): string {
  const savedPrepare = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  let file: string | null | undefined;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_e, sites) => sites;
    const sites = new Error().stack as unknown as NodeJS.CallSite[];
    file = sites[0]?.getFileName();
  } finally {
    Error.prepareStackTrace = savedPrepare;
    Error.stackTraceLimit = savedLimit;
  }
  if (file === null || file === undefined)
    throw new Error('open({ multiProcess: true }): cannot locate the secantusdb package');
  return file.startsWith('file:') ? fileURLToPath(file) : file;
}

function spawnDaemon(
  dir: string,
  socketPath: string,
  o: MultiProcessOptions & { readonly idleShutdownSecs: number },
): ChildProcess {
  const log = join(dir, daemonLogName);
  const args = [
    ...daemonCommand(),
    '--dbpath',
    dir,
    '--unixSocket',
    socketPath,
    '--idleShutdownSecs',
    String(o.idleShutdownSecs),
    '--logpath',
    log,
    '--logappend',
    '--quiet',
    '--replSet',
    o.replSet ?? 'rs0',
    ...(o.engine === undefined ? [] : ['--storageEngine', o.engine]),
    ...(o.enableTestCommands === true ? ['--setParameter', 'enableTestCommands=1'] : []),
    ...(o.javascriptEnabled === false ? ['--noscripting'] : []),
  ];
  // The daemon's settings are open()'s alone: none from this process's SECANTUS_* variables.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SECANTUS_')),
  );
  // Its stderr (a crash's last words) goes to the log too: it outlives this process.
  const errFd = openSync(log, 'a');
  try {
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', 'ignore', errFd],
      cwd: dir,
      env,
    });
    child.unref();
    return child;
  } finally {
    closeSync(errFd);
  }
}

/**
 * Connect to `socketPath` and send hello; resolves with the open socket once a reply with
 * ok: 1 arrives, or undefined (nothing listening, a stale socket file, a daemon stopping).
 */
function hello(socketPath: string, timeoutMs = 5_000): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) {
      resolve(undefined);
      return;
    }
    const socket = net.connect(socketPath);
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.removeAllListeners('close');
      socket.on('error', () => undefined);
      if (!ok) socket.destroy();
      resolve(ok ? socket : undefined);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('connect', () => socket.write(helloMessage()));
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (received.length < 4 || received.length < received.readInt32LE(0)) return;
      finish(helloAnswered(received));
    });
  });
}

const opMsg = 2013;

/** An OP_MSG with one body section: { hello: 1, $db: 'admin' }. */
function helloMessage(): Buffer {
  const body = BSON.serialize({ hello: 1, $db: 'admin' });
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + body.length, 0);
  header.writeInt32LE(1, 4); // requestID
  header.writeInt32LE(0, 8); // responseTo
  header.writeInt32LE(opMsg, 12);
  header.writeUInt32LE(0, 16); // flagBits
  header.writeUInt8(0, 20); // section kind 0: the body
  return Buffer.concat([header, body]);
}

function helloAnswered(reply: Buffer): boolean {
  try {
    if (reply.readInt32LE(12) !== opMsg || reply.readUInt8(20) !== 0) return false;
    const doc = BSON.deserialize(reply.subarray(21, reply.readInt32LE(0)));
    return doc['ok'] === 1;
  } catch {
    return false;
  }
}
