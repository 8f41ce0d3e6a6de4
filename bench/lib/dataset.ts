// The documents every harness uses: deterministic (the same seed gives the same bytes, so
// runs and machines compare), about 1 KiB each like the figures in DESIGN.md, with the
// fields the workloads filter, group and update on.

import { ObjectId } from 'bson';

export interface BenchDoc {
  _id: ObjectId;
  /** 0..n-1: the indexed range workload's field. */
  i: number;
  /** 50 distinct values: the $group key. */
  group: string;
  /** Half the documents: update_many and delete_many each touch one half. */
  even: boolean;
  /** Uniform in [0, 1): filtered scans and averages. */
  value: number;
  name: string;
  tags: string[];
  created: Date;
  address: { city: string; zip: string };
  /** Filler so that a document is about 1 KiB of BSON. */
  payload: string;
}

export const groupCount = 50;
const cities = [
  'Lisbon',
  'Oslo',
  'Quito',
  'Hanoi',
  'Lagos',
  'Perth',
  'Lima',
  'Riga',
  'Suva',
  'Baku',
] as const;
const tagWords = ['red', 'green', 'blue', 'amber', 'violet', 'teal', 'ochre', 'slate'] as const;
const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ';
const payloadChars = 760;
const baseTime = Date.UTC(2024, 0, 1);

/** A small, fast, deterministic generator (Park–Miller); quality is irrelevant here. */
export class Lcg {
  private s: number;
  constructor(seed: number) {
    this.s = (seed >>> 0) % 2147483647 || 1;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s * 48271) % 2147483647;
    return (this.s - 1) / 2147483646;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.min(n - 1, Math.floor(this.next() * n));
  }
}

/** A deterministic ObjectId for document i: fixed timestamp and process bytes, counter = i. */
export function objectIdFor(i: number): ObjectId {
  return new ObjectId(`65920080${'a1b2c3d4e5'}${i.toString(16).padStart(6, '0')}`);
}

function payload(rng: Lcg): string {
  let s = '';
  for (let k = 0; k < payloadChars; k++) s += alphabet[rng.int(alphabet.length)] as string;
  return s;
}

export function makeDoc(i: number, rng: Lcg): BenchDoc {
  const tags = [
    tagWords[i % tagWords.length],
    tagWords[(i * 3 + 1) % tagWords.length],
    tagWords[rng.int(tagWords.length)],
  ] as string[];
  return {
    _id: objectIdFor(i),
    i,
    group: `g${i % groupCount}`,
    even: i % 2 === 0,
    value: rng.next(),
    name: `user-${i}`,
    tags,
    created: new Date(baseTime + i * 1000),
    address: {
      city: cities[i % cities.length] as string,
      zip: String(10000 + ((i * 7919) % 90000)),
    },
    payload: payload(rng),
  };
}

/** n documents, the same for the same n and seed (i < 2^24: the ObjectId counter's width). */
export function makeDataset(n: number, seed = 42): BenchDoc[] {
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 24) throw new RangeError(`dataset size ${n}`);
  const rng = new Lcg(seed);
  const out: BenchDoc[] = [];
  for (let i = 0; i < n; i++) out.push(makeDoc(i, rng));
  return out;
}

/**
 * The concurrency harness's documents: about `bytes` of BSON each, varying per document
 * only in small fields (the payload is built once per writer: generating 8 KiB of text per
 * document would cost the client more CPU than the server spends storing it).
 */
export function makeLargeDocFactory(
  writer: number,
  bytes: number,
): (n: number) => Record<string, unknown> {
  const rng = new Lcg(1000 + writer);
  let text = '';
  const want = Math.max(0, bytes - 120);
  for (let k = 0; k < want; k++) text += alphabet[rng.int(alphabet.length)] as string;
  return (n: number) => ({
    writer,
    n,
    at: new Date(baseTime + n),
    value: rng.next(),
    payload: text,
  });
}
