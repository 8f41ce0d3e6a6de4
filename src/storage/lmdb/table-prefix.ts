// Table ids as key prefixes in the lmdb engine's single keyspace.
//
// The encoding only has to be prefix-free (no prefix starts another), so that a table's keys
// form one contiguous range; the order between tables is irrelevant. The first byte tells
// the length, as in UTF-8: ids below 2^7 take one byte, which covers the first hundred-odd
// collections and indexes; the longest prefix is 4 bytes (ids below 2^28).

export const tablePrefixBytesMax = 4;
export const tableIdMax = 0x0fff_ffff;

export function encodeTableId(id: number): Buffer {
  if (!Number.isInteger(id) || id < 0 || id > tableIdMax)
    throw new RangeError(`table id ${id} out of range`);
  if (id < 0x80) return Buffer.from([id]);
  if (id < 0x4000) return Buffer.from([0x80 | (id >>> 8), id & 0xff]);
  if (id < 0x20_0000) return Buffer.from([0xc0 | (id >>> 16), (id >>> 8) & 0xff, id & 0xff]);
  return Buffer.from([0xe0 | (id >>> 24), (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff]);
}

/** The id and prefix length at the start of `bytes`, or undefined if they are not a valid prefix. */
export function decodeTableId(bytes: Uint8Array): { id: number; length: number } | undefined {
  const b0 = bytes[0];
  if (b0 === undefined) return undefined;
  const length = b0 < 0x80 ? 1 : b0 < 0xc0 ? 2 : b0 < 0xe0 ? 3 : b0 < 0xf0 ? 4 : 0;
  if (length === 0 || bytes.length < length) return undefined;
  let id = length === 1 ? b0 : b0 & (0xff >>> length);
  for (let i = 1; i < length; i++) id = id * 256 + (bytes[i] as number);
  return { id, length };
}
