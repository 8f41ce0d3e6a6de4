// Bounding what a regular expression may cost. JavaScript's RegExp backtracks like PCRE and
// cannot be interrupted, so one pathological pattern on one string ((a+)+$ on 30 a's and a
// "!", (?:a|a){16}(?:a|a){10} on 26 a's, .*a.*a.*a.*b on a 100 KB string) would stall the
// event loop, and every other client with it. mongod bounds PCRE by a step count (its match
// limit); we cannot count V8's steps, so:
//
// - A search runs here, at native speed, only when an upper bound of the backtracking work it
//   can do, computed from the pattern's structure and the input's length, stays within
//   limits.regexNativeStepsMax. The bound is not an estimate a crafted pattern can fool: it
//   counts every way the pattern can match (alternatives add, sequences multiply, a repetition
//   of k iterations raises its body's ways to the k-th power), times the start positions
//   (occurrences of a literal prefix; one when anchored), times the length of one path.
//   Bounded repeats count like any other: (?:a|a){16} has 2^16 ways.
// - Any other search runs in a worker thread. When the read that runs it can yield (a driver's
//   slice is armed, see src/query/exec/yield.ts), it does not wait: the stage answers
//   NEED_TIME, the driver awaits the worker while the event loop serves everyone else, and stops
//   waiting at once on killOp or at the operation's deadline (the worker is then terminated).
//   Elsewhere (a write's statement selection) this thread waits for the worker synchronously.
// - Either way one search may run at most limits.regexMatchTimeMsMax; past it the worker is
//   terminated and the operation fails with 51156, as mongod's aggregation operators fail when
//   PCRE hits its match limit. (mongod's find treats that case as "no match"; we fail instead,
//   so that a result is never silently short.)

import { receiveMessageOnPort, MessageChannel, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { canDefer, deferUntil } from '../exec/yield.js';

/** One match: where it starts and its groups (index 0 the whole match; undefined for unset groups). */
export interface RegexMatch {
  readonly index: number;
  readonly groups: ReadonlyArray<string | undefined>;
}

/** A compiled pattern whose matching time is bounded. */
export interface GuardedRegex {
  /** Whether the pattern matches somewhere in `input`. */
  test(input: string): boolean;
  /** The first match at or after UTF-16 offset `from`. */
  exec(input: string, from: number): RegexMatch | null;
}

// ---- the bound -------------------------------------------------------------------------------

/** A pattern's structure, as far as the bound needs it. */
type PatternNode =
  | { readonly t: 'char'; readonly literal: string | undefined }
  | { readonly t: 'empty' }
  | { readonly t: 'backref' }
  | { readonly t: 'seq'; readonly items: readonly PatternNode[] }
  | { readonly t: 'alt'; readonly alts: readonly PatternNode[] }
  | { readonly t: 'look'; readonly body: PatternNode }
  | { readonly t: 'rep'; readonly body: PatternNode; readonly min: number; readonly max: number };

/**
 * Parses a JavaScript pattern (u mode, as the translation produces and RegExp accepted) into
 * the structure the bound reads. Classes, escapes and dots are single characters.
 */
export function parsePattern(source: string): PatternNode {
  let i = 0;
  const alt = (): PatternNode => {
    const alts: PatternNode[] = [seq()];
    while (source[i] === '|') {
      i++;
      alts.push(seq());
    }
    return alts.length === 1 ? (alts[0] as PatternNode) : { t: 'alt', alts };
  };
  const seq = (): PatternNode => {
    const items: PatternNode[] = [];
    while (i < source.length && source[i] !== '|' && source[i] !== ')') items.push(term());
    return items.length === 1 ? (items[0] as PatternNode) : { t: 'seq', items };
  };
  const term = (): PatternNode => {
    let node = atom();
    for (;;) {
      const c = source[i];
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 32));
        if (m === null) return node;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        i += m[0].length - 1;
      } else return node;
      i++;
      if (source[i] === '?') i++; // lazy: the same ways
      node = { t: 'rep', body: node, min, max };
    }
  };
  const atom = (): PatternNode => {
    const c = source[i] ?? '';
    if (c === '(') {
      const prefix = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i, i + 64));
      const look = prefix !== null && /^\(\?(?:=|!|<=|<!)$/.test(prefix[0]);
      i += prefix === null ? 1 : prefix[0].length;
      const body = alt();
      i++; // ')'
      return look ? { t: 'look', body } : body;
    }
    if (c === '[') {
      i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
      return { t: 'char', literal: undefined };
    }
    if (c === '^' || c === '$') {
      i++;
      return { t: 'empty' };
    }
    if (c === '\\') {
      const d = source[i + 1] ?? '';
      if (/[1-9]/.test(d)) {
        i += 2;
        while (/[0-9]/.test(source[i] ?? '')) i++;
        return { t: 'backref' };
      }
      if (d === 'k' && source[i + 2] === '<') {
        i = source.indexOf('>', i) + 1;
        return { t: 'backref' };
      }
      if (d === 'b' || d === 'B') {
        i += 2;
        return { t: 'empty' };
      }
      if ((d === 'p' || d === 'P' || d === 'u') && source[i + 2] === '{') {
        i = source.indexOf('}', i) + 1;
        return { t: 'char', literal: undefined };
      }
      if (d === 'u') i += 6;
      else if (d === 'x') i += 4;
      else if (d === 'c') i += 3;
      else i += 2;
      // An escaped punctuation character is itself; other escapes are classes or controls.
      return { t: 'char', literal: /[\^$.*+?()[\]{}|/\\-]/.test(d) ? d : undefined };
    }
    i++;
    return { t: 'char', literal: c === '.' ? undefined : c };
  };
  const root = alt();
  return root;
}

/**
 * The size of the backtracking tree a node explores before a continuation whose own tree has C
 * nodes, as an affine function a·C + b of C (sequences compose, alternatives add, so every node
 * is affine in its continuation). Counting tree nodes rather than paths keeps shared prefixes
 * shared: x+ on n characters is a chain of n, not n paths of up to n steps.
 */
interface Affine {
  readonly a: number;
  readonly b: number;
}

/** Iterates C → a·C + b + add, `times` times, from (p, q): the affine map R = p·C + q after it. */
function iterate(body: Affine, times: number, p: number, q: number, add: number): Affine {
  if (times <= 0) return { a: p, b: q };
  if (body.a === 1) return { a: p + times * add, b: q + times * body.b };
  // Closed form of the geometric recurrence (overflow goes to Infinity, which is what it means).
  const g = Math.pow(body.a, times);
  const s = (g - 1) / (body.a - 1);
  return { a: g * p + (add === 0 ? 0 : s * add), b: g * q + (body.b === 0 ? 0 : s * body.b) };
}

/** The tree a node explores on an input of n characters (see Affine). */
function treeOf(node: PatternNode, n: number): Affine {
  switch (node.t) {
    case 'char':
    case 'empty':
      return { a: 1, b: 1 };
    case 'backref':
      // Compares up to n characters, then goes on.
      return { a: 1, b: n + 1 };
    case 'look': {
      // Runs to its end once at each position where it is tried, then the continuation.
      const body = treeOf(node.body, n);
      return { a: 1, b: body.a + body.b + 1 };
    }
    case 'seq': {
      let acc: Affine = { a: 1, b: 0 };
      for (let k = node.items.length - 1; k >= 0; k--) {
        const t = treeOf(node.items[k] as PatternNode, n);
        // t(acc(C)) = t.a·(acc.a·C + acc.b) + t.b
        acc = { a: t.a * acc.a, b: t.a * acc.b + t.b };
      }
      return acc;
    }
    case 'alt': {
      let a = 0;
      let b = 0;
      for (const alt of node.alts) {
        const t = treeOf(alt, n);
        a += t.a;
        b += t.b;
      }
      return { a, b };
    }
    case 'rep': {
      const body = treeOf(node.body, n);
      // At most n + 1 iterations: one that consumes nothing ends the loop (V8's empty check).
      const k = Math.min(node.max, n + 1);
      const min = Math.min(node.min, k);
      // From the last iteration down: R_k = C; an optional iteration R_j = body(R_j+1) + C,
      // a required one R_j = body(R_j+1).
      const optional = iterate(body, k - min, 1, 0, 1);
      return iterate(body, min, optional.a, optional.b, 0);
    }
  }
}

/** A pattern, parsed once, and what its start positions depend on. */
export interface PatternShape {
  readonly root: PatternNode;
  readonly length: number;
  /** Starts only at the beginning of the input (^ without m, or sticky). */
  readonly anchored: boolean;
  /** A literal the match must start with (case-sensitive patterns), or ''. */
  readonly prefix: string;
}

export function patternShape(source: string, flags: string): PatternShape {
  const root = parsePattern(source);
  const items = root.t === 'seq' ? root.items : [root];
  const anchored =
    flags.includes('y') ||
    (!flags.includes('m') && items[0]?.t === 'empty' && source.startsWith('^'));
  let prefix = '';
  if (!flags.includes('i')) {
    for (const item of items) {
      if (item.t !== 'char' || item.literal === undefined || prefix.length >= 16) break;
      prefix += item.literal;
    }
  }
  return { root, length: source.length, anchored, prefix };
}

/**
 * An upper bound of the steps a backtracking search of `shape` does on `input` from `from`:
 * the start positions times the backtracking tree of one start.
 */
export function searchBound(shape: PatternShape, input: string, from: number): number {
  const n = input.length - from;
  let starts: number;
  if (shape.anchored) starts = 1;
  else if (shape.prefix !== '') {
    starts = 0;
    for (
      let at = input.indexOf(shape.prefix, from);
      at >= 0;
      at = input.indexOf(shape.prefix, at + 1)
    )
      starts++;
  } else starts = n + 1;
  if (starts === 0) return 0;
  const tree = treeOf(shape.root, n);
  const bound = starts * (tree.a + tree.b);
  // Overflow is Infinity; an Infinity·0 somewhere would be NaN: both mean "unbounded".
  return Number.isNaN(bound) ? Infinity : bound;
}

// ---- the worker ------------------------------------------------------------------------------

// Shared control words: [0] request counter (the worker waits on it), [1] ready flag,
// [2] number of the last request answered (this thread waits on it).
const REQUEST = 0;
const READY = 1;
const ANSWERED = 2;

const WORKER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, signal } = workerData;
const ctrl = new Int32Array(signal);
const compiled = new Map();
Atomics.store(ctrl, ${READY}, 1);
Atomics.notify(ctrl, ${READY});
let seen = 0;
for (;;) {
  Atomics.wait(ctrl, ${REQUEST}, seen, 100);
  seen = Atomics.load(ctrl, ${REQUEST});
  for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
    const { seq, source, flags, input, from } = m.message;
    const key = flags + '/' + source;
    let re = compiled.get(key);
    if (re === undefined) {
      re = new RegExp(source, flags);
      if (compiled.size >= 64) compiled.delete(compiled.keys().next().value);
      compiled.set(key, re);
    }
    re.lastIndex = from;
    const r = re.exec(input);
    port.postMessage(r === null ? null : { index: r.index, groups: Array.from(r) });
    Atomics.store(ctrl, ${ANSWERED}, seq);
    Atomics.notify(ctrl, ${ANSWERED});
  }
}
`;

interface MatchWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly ctrl: Int32Array;
  seq: number;
}

let current: MatchWorker | undefined;

function startWorker(): MatchWorker {
  const signal = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { port: port2, signal },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  // A worker that dies (terminated after a timeout, or out of memory) is replaced on next use.
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    if (current?.worker === worker) current = undefined;
  });
  return { worker, port: port1, ctrl: new Int32Array(signal), seq: 0 };
}

function abandon(w: MatchWorker): void {
  if (current === w) current = undefined;
  w.port.close();
  void w.worker.terminate();
}

function overLimit(opName: string): never {
  fail(
    ErrorCode.Location51156,
    `Error occurred while executing the regular expression in ${opName}. Result code: match limit exceeded (the match ran longer than ${limits.regexMatchTimeMsMax} ms)`,
  );
}

/** Runs one search in the worker, waiting at most the match time limit. */
function execInWorker(
  source: string,
  flags: string,
  input: string,
  from: number,
  opName: string,
): RegexMatch | null {
  const w = current ?? (current = startWorker());
  if (
    Atomics.load(w.ctrl, READY) !== 1 &&
    Atomics.wait(w.ctrl, READY, 0, limits.regexWorkerStartMsMax) === 'timed-out'
  ) {
    abandon(w);
    fail(
      ErrorCode.InternalError,
      `the regular expression worker did not start within ${limits.regexWorkerStartMsMax} ms`,
    );
  }
  const seq = (w.seq = (w.seq + 1) | 0);
  w.port.postMessage({ seq, source, flags, input, from });
  Atomics.add(w.ctrl, REQUEST, 1);
  Atomics.notify(w.ctrl, REQUEST);
  const deadline = performance.now() + limits.regexMatchTimeMsMax;
  for (;;) {
    const answered = Atomics.load(w.ctrl, ANSWERED);
    if (answered === seq) break;
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      abandon(w);
      overLimit(opName);
    }
    Atomics.wait(w.ctrl, ANSWERED, answered, remaining);
  }
  const reply = receiveMessageOnPort(w.port);
  if (reply === undefined) {
    abandon(w);
    fail(ErrorCode.InternalError, 'the regular expression worker answered without a result');
  }
  return reply.message as RegexMatch | null;
}

// ---- the asynchronous worker -------------------------------------------------------------

const ASYNC_WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const compiled = new Map();
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, source, flags, input, from }) => {
  const key = flags + '/' + source;
  let re = compiled.get(key);
  if (re === undefined) {
    re = new RegExp(source, flags);
    if (compiled.size >= 64) compiled.delete(compiled.keys().next().value);
    compiled.set(key, re);
  }
  re.lastIndex = from;
  const r = re.exec(input);
  parentPort.postMessage({ id, match: r === null ? null : { index: r.index, groups: Array.from(r) } });
});
`;

interface AsyncSearch {
  readonly id: number;
  readonly request: { source: string; flags: string; input: string; from: number };
  readonly opName: string;
  resolve(m: RegexMatch | null): void;
  reject(e: unknown): void;
  timer?: NodeJS.Timeout;
}

/**
 * One worker for searches awaited asynchronously, one search at a time, the others queued. A
 * search past the time limit, or one its operation stops waiting for, terminates the worker;
 * the next search starts a new one.
 */
class AsyncRegexWorker {
  private worker: Worker | undefined;
  /** The worker answered its start-up message: searches are timed from now on. */
  private ready = false;
  private startTimer: NodeJS.Timeout | undefined;
  private active: AsyncSearch | undefined;
  private readonly queue: AsyncSearch[] = [];
  private lastId = 0;

  submit(
    request: AsyncSearch['request'],
    opName: string,
  ): { promise: Promise<RegexMatch | null>; cancel: () => void } {
    const id = ++this.lastId;
    let search: AsyncSearch | undefined;
    const promise = new Promise<RegexMatch | null>((resolve, reject) => {
      search = { id, request, opName, resolve, reject };
    });
    this.queue.push(search as AsyncSearch);
    this.pump();
    return { promise, cancel: () => this.cancel(id) };
  }

  private pump(): void {
    if (this.active !== undefined || this.queue.length === 0) return;
    const worker = (this.worker ??= this.start());
    // Starting a worker takes a while (more on a loaded machine): it does not count as search time.
    if (!this.ready) return;
    const next = this.queue.shift() as AsyncSearch;
    this.active = next;
    next.timer = setTimeout(() => {
      this.finish(next.id);
      this.restart();
      try {
        overLimit(next.opName);
      } catch (e) {
        next.reject(e);
      }
    }, limits.regexMatchTimeMsMax);
    worker.postMessage({ id: next.id, ...next.request });
  }

  private start(): Worker {
    const worker = new Worker(ASYNC_WORKER_SOURCE, { eval: true });
    this.ready = false;
    this.startTimer = setTimeout(() => {
      // A worker that does not start fails what waits for it; the next search tries again.
      if (this.worker !== worker) return;
      this.restart();
      for (const s of this.queue.splice(0))
        s.reject(
          new CommandError(
            ErrorCode.InternalError,
            `the regular expression worker did not start within ${limits.regexWorkerStartMsMax} ms`,
          ),
        );
    }, limits.regexWorkerStartMsMax);
    this.startTimer.unref();
    worker.on('message', (m: { id: number; match: RegexMatch | null } | { ready: true }) => {
      if ('ready' in m) {
        if (this.worker !== worker) return;
        clearTimeout(this.startTimer);
        this.ready = true;
        this.pump();
        return;
      }
      const done = this.finish(m.id);
      done?.resolve(m.match);
    });
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      clearTimeout(this.startTimer);
      queueMicrotask(() => this.pump());
      const lost = this.active;
      if (lost !== undefined) {
        this.finish(lost.id);
        lost.reject(new Error('the regular expression worker stopped'));
      }
    });
    // After the listeners: adding a 'message' listener refs the worker again, and a referenced
    // idle worker keeps the process from exiting.
    worker.unref();
    return worker;
  }

  /** Ends the active search `id` (if it still is) and starts the next. */
  private finish(id: number): AsyncSearch | undefined {
    const a = this.active;
    if (a === undefined || a.id !== id) return undefined;
    clearTimeout(a.timer);
    this.active = undefined;
    queueMicrotask(() => this.pump());
    return a;
  }

  private restart(): void {
    const w = this.worker;
    this.worker = undefined;
    this.ready = false;
    clearTimeout(this.startTimer);
    void w?.terminate();
  }

  private cancel(id: number): void {
    const queued = this.queue.findIndex((s) => s.id === id);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      return;
    }
    if (this.active?.id === id) {
      // Nobody waits for it any more, and it may run for long: stop it.
      this.finish(id);
      this.restart();
    }
  }
}

const asyncWorker = new AsyncRegexWorker();

function execInWorkerAsync(
  source: string,
  flags: string,
  input: string,
  from: number,
  opName: string,
): { promise: Promise<RegexMatch | null>; cancel: () => void } {
  return asyncWorker.submit({ source, flags, input, from }, opName);
}

/** What a deferred search found, kept until the stage evaluates its document again. */
interface CachedSearch {
  readonly input: string;
  readonly from: number;
  readonly result: RegexMatch | null;
  /** The search failed (51156): the evaluation fails with it. */
  readonly error?: unknown;
}

/** Searches kept per pattern for the evaluations that deferred them (see canDefer). */
const cachedSearchesMax = 1024;

/**
 * Wraps a compiled pattern so that no search can hold this thread beyond the bound, and no
 * search in the worker runs longer than the limit. `opName` names the operator in the error
 * ($regex, $regexMatch, ...).
 */
export function guardRegex(re: RegExp, opName: string): GuardedRegex {
  // Searches from an offset need the g (or y) flag; the worker's copy gets the same flags.
  const searching = re.global || re.sticky ? re : new RegExp(re.source, `${re.flags}g`);
  const shape = patternShape(re.source, re.flags);
  const cache: CachedSearch[] = [];
  const inWorker = (input: string, from: number): RegexMatch | null => {
    const hit = cache.find((c) => c.from === from && c.input === input);
    if (hit !== undefined) {
      if (hit.error !== undefined) throw hit.error;
      return hit.result;
    }
    if (!canDefer()) return execInWorker(searching.source, searching.flags, input, from, opName);
    const keep = (entry: CachedSearch): void => {
      if (cache.length >= cachedSearchesMax) cache.shift();
      cache.push(entry);
    };
    const search = execInWorkerAsync(searching.source, searching.flags, input, from, opName);
    deferUntil(
      search.promise.then(
        (result) => keep({ input, from, result }),
        (error: unknown) => keep({ input, from, result: null, error }),
      ),
      search.cancel,
    );
  };
  const exec = (input: string, from: number): RegexMatch | null => {
    if (searchBound(shape, input, from) <= limits.regexNativeStepsMax) {
      searching.lastIndex = from;
      const m = searching.exec(input);
      return m === null ? null : { index: m.index, groups: Array.from(m) };
    }
    return inWorker(input, from);
  };
  return {
    test(input) {
      if (searchBound(shape, input, 0) <= limits.regexNativeStepsMax) {
        re.lastIndex = 0;
        return re.test(input);
      }
      return inWorker(input, 0) !== null;
    },
    exec,
  };
}
