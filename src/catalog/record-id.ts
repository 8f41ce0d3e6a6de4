// RecordIds: per-collection int64s, increasing in insertion order (the natural order, as in
// mongod), stored as 8-byte big-endian keys so byte order equals numeric order.

export type RecordId = number;

export function encodeRecordId(id: RecordId): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(BigInt(id));
  return b;
}

export function decodeRecordId(key: Uint8Array): RecordId {
  return Number(Buffer.from(key.buffer, key.byteOffset, 8).readBigUInt64BE());
}
