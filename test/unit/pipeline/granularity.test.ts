// $bucketAuto's granularity rounders (src/pipeline/stages/granularity.ts), against the rules of
// mongod's granularity_rounder_preferred_numbers.cpp and granularity_rounder_powers_of_two.cpp:
// series values times powers of ten in double arithmetic (decimal for decimal input), strictly
// above / below the value, zero unchanged, POWERSOF2 as $pow(2, <int exponent>).

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Decimal128, Double, EJSON, Int32, Long } from 'bson';
import { rounderFor } from '../../../src/pipeline/stages/granularity.js';
import { CommandError } from '../../../src/errors.js';

const key = (v: unknown): string => EJSON.stringify({ v }, { relaxed: false });
const same = (got: unknown, want: unknown): void => assert.equal(key(got), key(want));

test('preferred numbers: up is the next series value, down the previous one', () => {
  const r20 = rounderFor('R20');
  same(r20.up(new Int32(19)), new Double(20));
  same(r20.up(new Int32(59)), new Double(63));
  same(r20.up(new Int32(99)), new Double(100));
  same(r20.down(new Int32(21)), new Double(20));
  same(r20.down(new Int32(20)), new Double(18));
  const e12 = rounderFor('E12');
  same(e12.up(new Int32(13)), new Double(15));
  same(e12.down(new Int32(11)), new Double(10));
});

test('preferred numbers: values between scales round to the neighbouring scale (0.8 in E6)', () => {
  const e6 = rounderFor('E6');
  same(e6.up(new Double(0.8)), new Double(10 * 0.1));
  same(e6.down(new Double(0.8)), new Double(68 * 0.01));
});

test('preferred numbers: doubles are computed as mongod computes them (series value times a power of ten)', () => {
  same(rounderFor('R5').up(new Int32(1)), new Double(16 * 0.1));
  same(rounderFor('R40').up(new Int32(101)), new Double(106));
  same(rounderFor('E192').down(new Int32(101)), new Double(100));
});

test('preferred numbers: zero stays as it is, decimals round in decimal', () => {
  same(rounderFor('E24').up(new Int32(0)), new Int32(0));
  same(rounderFor('E24').down(new Long(0)), new Long(0));
  const up = rounderFor('1-2-5').up(Decimal128.fromString('17'));
  assert.ok(up instanceof Decimal128);
  assert.equal(Number(up.toString()), 20);
});

test('POWERSOF2: integral results for integral and double inputs, doubles below 1', () => {
  const p = rounderFor('POWERSOF2');
  same(p.up(new Int32(5)), new Int32(8));
  same(p.up(new Int32(8)), new Int32(16));
  same(p.down(new Int32(8)), new Int32(4));
  same(p.down(new Int32(5)), new Int32(4));
  same(p.up(new Double(3.5)), new Int32(4));
  same(p.up(new Double(0.3)), new Double(0.5));
  same(p.up(new Int32(2147483647)), Long.fromNumber(2147483648));
  same(p.up(new Int32(0)), new Int32(0));
});

test('an unknown granularity is 40257', () => {
  assert.throws(
    () => rounderFor('R7'),
    (e: unknown) => e instanceof CommandError && e.code === 40257,
  );
});
