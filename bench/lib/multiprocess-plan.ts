// The multi-process benchmark's workload, as data: the JSON documents, the order of the
// point reads, updates and deletes, and how they are split between worker processes. Pure
// and deterministic (a fixed seed), so that every row, every process and every repetition
// does exactly the same work, and so that test/unit/bench can check it without a process.

import { Lcg } from './dataset.js';

/** A JSON-shaped document: only strings, numbers, booleans, arrays and objects. */
export interface JsonDoc {
  _id: string;
  i: number;
  name: string;
  email: string;
  age: number;
  active: boolean;
  score: number;
  tags: string[];
  address: { street: string; city: string; zip: string };
  /** An ISO date string (JSON has no date type). */
  created: string;
  /** 1 when inserted; each update increments it. */
  version: number;
  /** 'new' when inserted; the update phase sets 'updated'. */
  status: string;
  bio: string;
}

export interface MpSizes {
  readonly docs: number;
  readonly pointReads: number;
  readonly updates: number;
  readonly deletes: number;
  /** Repetitions of every (row, profile); the median is reported. */
  readonly repetitions: number;
  /** Worker process counts, one profile each. */
  readonly profiles: readonly number[];
  /** Documents in each worker's untimed warm-up (a side collection, dropped after). */
  readonly warmupDocs: number;
}

export const mpDefaultSizes: MpSizes = {
  docs: 1_000,
  pointReads: 200,
  updates: 100,
  deletes: 100,
  repetitions: 3,
  profiles: [1, 4],
  warmupDocs: 20,
};

/** --quick: every code path once, figures not meant to be read. */
export const mpQuickSizes: MpSizes = {
  docs: 200,
  pointReads: 40,
  updates: 20,
  deletes: 20,
  repetitions: 1,
  profiles: [1, 4],
  warmupDocs: 5,
};

export const mpSeed = 1919;

export const phaseNames = ['insert', 'readAll', 'pointReads', 'updates', 'deletes'] as const;
export type PhaseName = (typeof phaseNames)[number];

const first = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'] as const;
const last = ['Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson'];
const cities = ['Lisbon', 'Oslo', 'Quito', 'Hanoi', 'Lagos', 'Perth', 'Lima', 'Riga'] as const;
const words = ['data', 'query', 'index', 'store', 'shard', 'cache', 'log', 'page', 'node', 'key'];
const baseTime = Date.UTC(2024, 0, 1);

function pick<T>(xs: readonly T[], rng: Lcg): T {
  return xs[rng.int(xs.length)] as T;
}

export function docId(i: number): string {
  return `doc-${String(i).padStart(6, '0')}`;
}

/** Document i of the dataset; about 510 bytes of JSON. */
export function makeJsonDoc(i: number, rng: Lcg): JsonDoc {
  const firstName = pick(first, rng);
  const lastName = pick(last, rng);
  const bio: string[] = [];
  for (let k = 0; k < 40; k++) bio.push(pick(words, rng));
  return {
    _id: docId(i),
    i,
    name: `${firstName} ${lastName}`,
    email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}${i}@example.com`,
    age: 18 + rng.int(60),
    active: rng.next() < 0.7,
    score: Math.round(rng.next() * 1e6) / 1e4,
    tags: [pick(words, rng), pick(words, rng), pick(words, rng)],
    address: {
      street: `${1 + rng.int(999)} ${pick(words, rng)} street`,
      city: pick(cities, rng),
      zip: String(10_000 + rng.int(90_000)),
    },
    created: new Date(baseTime + i * 60_000).toISOString(),
    version: 1,
    status: 'new',
    bio: bio.join(' '),
  };
}

/** A deterministic permutation of 0..n-1 (Fisher–Yates with a seeded generator). */
export function permutation(n: number, rng: Lcg): number[] {
  const out = Array.from({ length: n }, (_, k) => k);
  for (let k = n - 1; k > 0; k--) {
    const j = rng.int(k + 1);
    const t = out[k] as number;
    out[k] = out[j] as number;
    out[j] = t;
  }
  return out;
}

export interface Plan {
  readonly docs: readonly JsonDoc[];
  /** _ids read one at a time, in this order (all distinct, all present when read). */
  readonly pointReads: readonly string[];
  /** _ids updated one at a time; disjoint from the deletes. */
  readonly updates: readonly string[];
  /** _ids deleted one at a time. */
  readonly deletes: readonly string[];
}

/** The whole workload; the same for the same sizes and seed, in every process. */
export function makePlan(sizes: MpSizes, seed = mpSeed): Plan {
  const { docs: n, pointReads, updates, deletes } = sizes;
  if (pointReads > n || updates + deletes > n)
    throw new RangeError(
      `plan: ${pointReads} reads, ${updates} updates + ${deletes} deletes need more than ${n} documents`,
    );
  const rng = new Lcg(seed);
  const docs: JsonDoc[] = [];
  for (let i = 0; i < n; i++) docs.push(makeJsonDoc(i, rng));
  const reads = permutation(n, rng).slice(0, pointReads).map(docId);
  const writes = permutation(n, rng);
  return {
    docs,
    pointReads: reads,
    updates: writes.slice(0, updates).map(docId),
    deletes: writes.slice(updates, updates + deletes).map(docId),
  };
}

/**
 * Worker `index`'s share of `items` when `parts` workers split them: contiguous slices whose
 * sizes differ by at most one, covering every item exactly once.
 */
export function partition<T>(items: readonly T[], parts: number, index: number): T[] {
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`partition: ${parts} parts`);
  if (!Number.isInteger(index) || index < 0 || index >= parts)
    throw new RangeError(`partition: part ${index} of ${parts}`);
  const from = Math.floor((index * items.length) / parts);
  const to = Math.floor(((index + 1) * items.length) / parts);
  return items.slice(from, to);
}

/** Nearest-rank percentile (p in (0, 100]) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('percentile of an empty sample');
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p}`);
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.max(0, rank - 1)] as number;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty sample');
  let t = 0;
  for (const v of values) t += v;
  return t / values.length;
}
