// Bounding what a regular expression may cost. JavaScript's RegExp backtracks like PCRE and
// cannot be interrupted, so one pathological pattern on one long string ((a+)+$ on 30 a's and a
// "!", or .*a.*a.*a.*b on a 100 KB string) would stall the event loop, and every other client
// with it. mongod bounds PCRE by a step count (its match limit); we bound by time:
//
// - From the pattern we estimate, once, how its worst case grows with the input: a pattern with
//   q unbounded quantifiers needs at most about (n+1)^(q+1) steps on a string of n characters
//   (one factor for each start position of the search); a quantified group that itself holds a
//   quantifier or an alternation, or a back-reference, may take exponential time.
// - A match whose estimate stays within limits.regexNativeStepsMax runs here, at native speed
//   (the everyday case: short strings, simple patterns).
// - Any other match runs in a worker thread while this thread waits for it synchronously, at
//   most limits.regexMatchTimeMsMax. A match that takes longer is abandoned (the worker is
//   terminated and replaced) and the operation fails with 51156, as mongod's aggregation
//   operators fail when PCRE hits its match limit. (mongod's find treats that case as "no
//   match"; we fail instead, so that a result is never silently short.)
//
// The worst wait is therefore bounded, whatever the pattern and the data.

import { receiveMessageOnPort, MessageChannel, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';

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

/** How the worst-case cost of a pattern grows with the input length. */
export type RegexCost =
  { readonly kind: 'polynomial'; readonly degree: number } | { readonly kind: 'exponential' };

/** A bounded quantifier {n,m} with m above this is counted as unbounded. */
const SMALL_REPEAT_MAX = 16;

/**
 * Estimates the cost class of a JavaScript pattern (the translated source): counts the
 * quantifiers that can repeat without a small bound, and looks for the constructs whose
 * backtracking can be exponential.
 */
export function regexCost(source: string): RegexCost {
  interface Group {
    /** Holds a quantifier (even ?: each makes one more way to match). */
    quantified: boolean;
    /** Holds a quantifier without a small bound. */
    unbounded: boolean;
    alternation: boolean;
  }
  const open: Group[] = [];
  let degree = 0;
  let lastGroup: Group | undefined; // the atom before a quantifier, when it is a group
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    let closed: Group | undefined;
    if (c === '\\') {
      const d = source[i + 1] ?? '';
      if (/[1-9]/.test(d) || d === 'k') return { kind: 'exponential' }; // back-reference
      i += 1;
    } else if (c === '[') {
      // A class is one atom; skip to its closing bracket.
      i += 1;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    } else if (c === '(') {
      // A group's prefix ((?: (?= (?! (?<= (?<! (?<name>) is not a quantifier. A look-around
      // costs what its content costs, at each position: it counts as a group.
      const prefix = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i, i + 64));
      if (prefix !== null) i += prefix[0].length - 1;
      open.push({ quantified: false, unbounded: false, alternation: false });
      continue;
    } else if (c === ')') {
      closed = open.pop();
      const outer = open[open.length - 1];
      if (closed !== undefined && outer !== undefined) {
        outer.quantified ||= closed.quantified;
        outer.unbounded ||= closed.unbounded;
        outer.alternation ||= closed.alternation;
      }
    } else if (c === '|') {
      const g = open[open.length - 1];
      if (g !== undefined) g.alternation = true;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      let max = c === '?' ? 1 : Infinity;
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
        if (m === null) {
          lastGroup = undefined;
          continue; // a literal "{"
        }
        max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
        i += m[0].length - 1;
      }
      if (source[i + 1] === '?') i += 1; // lazy: the same worst case
      const unbounded = max > SMALL_REPEAT_MAX;
      if (lastGroup !== undefined && max > 1) {
        // Repeating a group whose content can match in many ways multiplies the ways.
        if (lastGroup.unbounded || (unbounded && (lastGroup.quantified || lastGroup.alternation)))
          return { kind: 'exponential' };
      }
      if (unbounded) degree += 1;
      for (const g of open) {
        g.quantified = true;
        g.unbounded ||= unbounded;
      }
      lastGroup = undefined;
      continue;
    }
    lastGroup = closed;
  }
  return { kind: 'polynomial', degree };
}

/** The longest input a search may run on here without the guard: (n+1)^(degree+1) within the step budget. */
function nativeLengthMax(cost: RegexCost): number {
  if (cost.kind === 'exponential') return limits.regexNativeExponentialLengthMax;
  return Math.floor(limits.regexNativeStepsMax ** (1 / (cost.degree + 1))) - 1;
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

/**
 * Wraps a compiled pattern so that no single search runs longer than the limit. `opName`
 * names the operator in the error ($regex, $regexMatch, ...).
 */
export function guardRegex(re: RegExp, opName: string): GuardedRegex {
  const nativeMax = nativeLengthMax(regexCost(re.source));
  // Searches from an offset need the g (or y) flag; the worker's copy gets the same flags.
  const searching = re.global || re.sticky ? re : new RegExp(re.source, `${re.flags}g`);
  const exec = (input: string, from: number): RegexMatch | null => {
    if (input.length - from <= nativeMax) {
      searching.lastIndex = from;
      const m = searching.exec(input);
      return m === null ? null : { index: m.index, groups: Array.from(m) };
    }
    return execInWorker(searching.source, searching.flags, input, from, opName);
  };
  return {
    test(input) {
      if (input.length <= nativeMax) {
        re.lastIndex = 0;
        return re.test(input);
      }
      return execInWorker(searching.source, searching.flags, input, 0, opName) !== null;
    },
    exec,
  };
}
