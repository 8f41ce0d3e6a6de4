// Exact-as-possible summation for $sum, $avg and their window forms (mongod's
// DoubleDoubleSummation plus a separate decimal total): integers are added exactly, doubles in
// double-double arithmetic (a sum and its rounding error), decimals in decimal128. The result
// type is the widest input type; an int64 sum that overflows becomes a double.

import { Decimal128, Double, Int32, Long } from 'bson';
import * as num from '../../bson/numeric.js';
import type { BsonNumber } from '../../bson/numeric.js';
import type { Value } from '../expressions/types.js';

type Widest = 'int' | 'long' | 'double' | 'decimal';
const ORDER: readonly Widest[] = ['int', 'long', 'double', 'decimal'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Knuth's TwoSum: the rounded sum and its exact error. */
function twoSum(a: number, b: number): [number, number] {
  const s = a + b;
  const bb = s - a;
  const err = a - (s - bb) + (b - bb);
  return [s, err];
}

export class Summation {
  private widest: Widest = 'int';
  /** Exact sum of the integer inputs while every input was an integer. */
  private integerTotal = 0n;
  private sum = 0;
  private error = 0;
  /** NaN/Infinity inputs poison the double-double pair; they are summed apart, as mongod does. */
  private special = 0;
  private hasSpecial = false;
  private decimalTotal: Decimal128 | undefined;
  count = 0;

  add(v: BsonNumber): void {
    this.count++;
    const kind = num.numericTypeOf(v) as Widest;
    if (ORDER.indexOf(kind) > ORDER.indexOf(this.widest)) this.widest = kind;
    if (v instanceof Decimal128) {
      this.decimalTotal =
        this.decimalTotal === undefined ? v : (num.add(this.decimalTotal, v) as Decimal128);
      return;
    }
    if (v instanceof Int32 || v instanceof Long) {
      const n = v instanceof Int32 ? BigInt(v.value) : v.toBigInt();
      this.integerTotal += n;
      const hi = Number(n);
      this.addDouble(hi);
      this.addDouble(Number(n - BigInt(hi)));
      return;
    }
    this.addDouble(v.value);
  }

  /** Removes a value added before (window functions). */
  remove(v: BsonNumber): void {
    this.count--;
    if (v instanceof Decimal128) {
      this.decimalTotal = num.subtract(
        this.decimalTotal ?? Decimal128.fromString('0'),
        v,
      ) as Decimal128;
      return;
    }
    if (v instanceof Int32 || v instanceof Long) {
      const n = v instanceof Int32 ? BigInt(v.value) : v.toBigInt();
      this.integerTotal -= n;
      const hi = Number(n);
      this.addDouble(-hi);
      this.addDouble(-Number(n - BigInt(hi)));
      return;
    }
    if (!Number.isFinite(v.value)) {
      // A removed NaN/Infinity cannot be subtracted back out of a sum; recomputation is the
      // caller's job (window functions rebuild on such removals).
      this.special -= v.value;
      return;
    }
    this.addDouble(-v.value);
  }

  private addDouble(x: number): void {
    if (!Number.isFinite(x)) {
      this.special += x;
      this.hasSpecial = true;
      return;
    }
    const [s, e] = twoSum(this.sum, x);
    this.sum = s;
    this.error += e;
  }

  /** The non-decimal total as a double. */
  doubleValue(): number {
    if (this.hasSpecial) return this.special + this.sum + this.error;
    return this.sum + this.error;
  }

  private fitsLong(): boolean {
    return this.integerTotal >= INT64_MIN && this.integerTotal <= INT64_MAX;
  }

  /** The total with mongod's result type ($sum). */
  total(): BsonNumber {
    switch (this.widest) {
      case 'int':
        if (this.fitsLong()) return num.intOrLong(this.integerTotal);
        return new Double(this.doubleValue());
      case 'long':
        if (this.fitsLong()) return Long.fromBigInt(this.integerTotal);
        return new Double(this.doubleValue());
      case 'double':
        return new Double(this.doubleValue());
      case 'decimal':
        return this.decimalSum();
    }
  }

  decimalSum(): Decimal128 {
    let total = Decimal128.fromString('0');
    const d = this.doubleValue();
    if (d !== 0 || this.hasSpecial) {
      total = num.add(
        total,
        num.decimalFromDouble(this.sum + (this.hasSpecial ? this.special : 0), 34),
      ) as Decimal128;
      if (this.error !== 0)
        total = num.add(total, num.decimalFromDouble(this.error, 34)) as Decimal128;
    }
    if (this.decimalTotal !== undefined) total = num.add(total, this.decimalTotal) as Decimal128;
    return total;
  }

  /** The mean ($avg): null without input, a decimal if any input was one, else a double. */
  average(): Value {
    if (this.count === 0) return null;
    if (this.widest === 'decimal')
      return num.divide(this.decimalSum(), Long.fromNumber(this.count)) as Decimal128;
    return new Double(this.doubleValue() / this.count);
  }
}
