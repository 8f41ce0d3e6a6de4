// Test helpers for long operations: a promise whose settling can be asked about (to assert an
// order of events instead of a timing), and the server error code a promise ends with.

import { MongoServerError } from 'mongodb';

export interface Tracked<T> {
  readonly promise: Promise<T>;
  settled(): boolean;
}

export function track<T>(p: Promise<T>): Tracked<T> {
  let done = false;
  const promise = p.finally(() => {
    done = true;
  });
  // The test reads the outcome later; keep an early rejection from being reported as unhandled.
  promise.catch(() => undefined);
  return { promise, settled: () => done };
}

/** The server error `p` rejects with (undefined when it resolves; other errors are thrown). */
export async function serverErrorOf(p: Promise<unknown>): Promise<MongoServerError | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (e instanceof MongoServerError) return e;
    throw e;
  }
}

/** The code of the server error `p` rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  const e = await serverErrorOf(p);
  return e === undefined ? undefined : typeof e.code === 'number' ? e.code : -1;
}
