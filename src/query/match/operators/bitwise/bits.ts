// The bit-test core shared by $bitsAllSet, $bitsAllClear, $bitsAnySet and $bitsAnyClear
// (mongod's BitTestMatchExpression). The operand is a non-negative integer mask, an array of
// bit positions, or BinData (bit i of byte i/8, least significant first). A document value is
// tested if it is BinData (positions beyond its length read as 0) or an integral number within
// int64 (doubles and decimals must be integral: jstests/core/query/bittest.js filters out NaN,
// infinities and fractions of both), in two's complement, where positions beyond 63 read the
// sign bit.

import { Binary, Decimal128, Double, Int32, Long, isArray } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import type { PathValue } from '../../../../bson/path.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { pathNode, simpleTest } from '../../nodes.js';
import {
  decimalToLongExact,
  integerOrFail,
  parseIntegerToNonNegativeInt,
  parseIntegerToNonNegativeLong,
} from '../../numbers.js';
import { describeElement } from '../../describe.js';
import type { BitTestOp } from '../../types.js';
import type { PathOperator } from '../registry.js';

const MASK64 = (1n << 64n) - 1n;
const SIGN_EXTENDED_BYTE = 0xffffffffffffff00n; // the high bits a negative C++ `char` brings

interface BitOperand {
  positions: number[];
  /** The same bits as a 64-bit mask for numeric values (positions past 63 fold into the sign bit). */
  mask: bigint;
}

function fromPositions(positions: number[]): BitOperand {
  let mask = 0n;
  for (const p of positions) mask |= 1n << BigInt(Math.min(p, 63));
  return { positions, mask };
}

function fromMask(mask: bigint): BitOperand {
  const positions: number[] = [];
  for (let b = 0; b < 64; b++) if ((mask >> BigInt(b)) & 1n) positions.push(b);
  return { positions, mask };
}

/**
 * A BinData operand. Its numeric mask reproduces mongod exactly, including a quirk: each byte
 * is read as a signed char, so a byte >= 0x80 among the first eight sets every higher bit
 * (x86 behaviour); bytes past the eighth set only the sign bit.
 */
function fromBinary(bin: Binary): BitOperand {
  const bytes = bin.buffer.subarray(0, bin.position);
  const positions: number[] = [];
  let mask = 0n;
  bytes.forEach((byte, i) => {
    if (byte === 0) return;
    if (i < 8) {
      const extended = byte >= 0x80 ? SIGN_EXTENDED_BYTE | BigInt(byte) : BigInt(byte);
      mask |= (extended << BigInt(8 * i)) & MASK64;
    } else {
      mask |= 1n << 63n;
    }
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) positions.push(8 * i + bit);
  });
  return { positions, mask };
}

function parseOperand(name: string, path: string, arg: BsonValue): BitOperand {
  if (isArray(arg)) {
    return fromPositions(
      arg.map((p, i) =>
        Number(
          integerOrFail(
            parseIntegerToNonNegativeInt(String(i), p),
            ErrorCode.BadValue,
            'Failed to parse bit position. ',
          ),
        ),
      ),
    );
  }
  if (
    arg instanceof Int32 ||
    arg instanceof Long ||
    arg instanceof Double ||
    arg instanceof Decimal128
  ) {
    return fromMask(integerOrFail(parseIntegerToNonNegativeLong(name, arg)));
  }
  if (arg instanceof Binary) return fromBinary(arg);
  fail(
    ErrorCode.BadValue,
    `${path} takes an Array, a number, or a BinData but received: ${describeElement(name, arg)}`,
  );
}

/** The int64 a numeric value is tested as, or undefined when it is not tested (mongod rules). */
function numericValue(v: PathValue): bigint | undefined {
  if (v instanceof Int32) return BigInt(v.value);
  if (v instanceof Long) return v.toBigInt();
  if (v instanceof Decimal128) return decimalToLongExact(v);
  if (!(v instanceof Double)) return undefined;
  const d = v.value;
  if (Number.isNaN(d) || d >= 2 ** 63 || d < -(2 ** 63) || !Number.isInteger(d)) return undefined;
  return BigInt(d);
}

const ALL: Record<BitTestOp, boolean> = {
  bitsAllSet: true,
  bitsAllClear: true,
  bitsAnySet: false,
  bitsAnyClear: false,
};
const WANT_SET: Record<BitTestOp, boolean> = {
  bitsAllSet: true,
  bitsAnySet: true,
  bitsAllClear: false,
  bitsAnyClear: false,
};

function testNumber(op: BitTestOp, value: bigint, mask: bigint): boolean {
  const bits = BigInt.asUintN(64, value) & mask;
  const wanted = WANT_SET[op] ? bits : mask & ~bits;
  return ALL[op] ? wanted === mask : wanted !== 0n;
}

function testBinary(op: BitTestOp, bin: Binary, positions: readonly number[]): boolean {
  const bytes = bin.buffer.subarray(0, bin.position);
  const check = (p: number): boolean => {
    const byte = p < bytes.length * 8 ? (bytes[p >> 3] as number) : 0;
    return ((byte >> (p & 7)) & 1) === (WANT_SET[op] ? 1 : 0);
  };
  return ALL[op] ? positions.every(check) : positions.some(check);
}

export function bitTestOperator(name: string, op: BitTestOp): PathOperator {
  return {
    name,
    parse({ path, arg }) {
      const { positions, mask } = parseOperand(name, path, arg);
      const test = (v: PathValue): boolean => {
        if (v instanceof Binary) return testBinary(op, v, positions);
        const n = numericValue(v);
        return n !== undefined && testNumber(op, n, mask);
      };
      return pathNode(path, { kind: op, positions }, simpleTest(test));
    },
  };
}
