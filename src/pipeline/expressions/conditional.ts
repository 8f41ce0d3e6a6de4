// Conditional operators: $cond (array or named form), $ifNull (first non-null operand; the last
// one is the fallback, even when null), $switch.

import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { isNullish, toBool, typeName } from '../values.js';
import { checkExactArity, operatorExpression, parseOperands } from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

const $cond: OperatorDefinition = {
  name: '$cond',
  parse(arg, ctx) {
    let ifE: Expression | undefined;
    let thenE: Expression | undefined;
    let elseE: Expression | undefined;
    if (isPlainDocument(arg)) {
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'if') ifE = ctx.parse(v);
        else if (k === 'then') thenE = ctx.parse(v);
        else if (k === 'else') elseE = ctx.parse(v);
        else fail(ErrorCode.Location17083, `Unrecognized parameter to $cond: ${k}`);
      }
      if (ifE === undefined) fail(ErrorCode.Location17080, "Missing 'if' parameter to $cond");
      if (thenE === undefined) fail(ErrorCode.Location17081, "Missing 'then' parameter to $cond");
      if (elseE === undefined) fail(ErrorCode.Location17082, "Missing 'else' parameter to $cond");
    } else {
      const ops = parseOperands(arg, ctx);
      checkExactArity('$cond', ops.length, 3);
      [ifE, thenE, elseE] = ops as [Expression, Expression, Expression];
    }
    const i = ifE;
    const t = thenE;
    const e = elseE;
    // A constant condition selects its branch at parse time, as mongod's optimize() does.
    if (i.kind === 'constant') return toBool(i.value ?? null) ? t : e;
    return operatorExpression('$cond', [i, t, e], (f: Frame) =>
      toBool(i.evaluate(f)) ? t.evaluate(f) : e.evaluate(f),
    );
  },
};

const $ifNull: OperatorDefinition = {
  name: '$ifNull',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    if (children.length < 2)
      fail(
        ErrorCode.Location1257300,
        `$ifNull needs at least two arguments, had: ${children.length}`,
      );
    const last = children.length - 1;
    const evaluate = (frame: Frame): Value => {
      for (let i = 0; i < last; i++) {
        const v = (children[i] as Expression).evaluate(frame);
        if (!isNullish(v)) return v;
      }
      return (children[last] as Expression).evaluate(frame);
    };
    return operatorExpression('$ifNull', children, evaluate);
  },
};

const $switch: OperatorDefinition = {
  name: '$switch',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location40060,
        `$switch requires an object as an argument, found: ${typeName(arg)}`,
      );
    const branches: Array<[Expression, Expression]> = [];
    let deflt: Expression | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'branches') {
        if (!isArray(v))
          fail(
            ErrorCode.Location40061,
            `$switch expected an array for 'branches', found: ${typeName(v)}`,
          );
        for (const b of v) {
          if (!isPlainDocument(b))
            fail(
              ErrorCode.Location40062,
              `$switch expected each branch to be an object, found: ${typeName(b)}`,
            );
          let c: Expression | undefined;
          let t: Expression | undefined;
          for (const [bk, bv] of Object.entries(b as BsonDocument)) {
            if (bk === 'case') c = ctx.parse(bv);
            else if (bk === 'then') t = ctx.parse(bv);
            else
              fail(ErrorCode.Location40063, `$switch found an unknown argument to a branch: ${bk}`);
          }
          if (c === undefined)
            fail(ErrorCode.Location40064, "$switch requires each branch have a 'case' expression");
          if (t === undefined)
            fail(ErrorCode.Location40065, "$switch requires each branch have a 'then' expression.");
          branches.push([c, t]);
        }
      } else if (k === 'default') {
        deflt = ctx.parse(v);
      } else {
        fail(ErrorCode.Location40067, `$switch found an unknown argument: ${k}`);
      }
    }
    if (branches.length === 0)
      fail(ErrorCode.Location40068, '$switch requires at least one branch.');
    // mongod's optimize(): constant false cases go, a constant true case becomes the default.
    const live: Array<[Expression, Expression]> = [];
    for (const [c, t] of branches) {
      if (c.kind === 'constant') {
        if (toBool(c.value ?? null)) {
          deflt = t;
          break;
        }
        continue;
      }
      live.push([c, t]);
    }
    if (live.length === 0) {
      if (deflt === undefined)
        fail(
          ErrorCode.Location40069,
          'One cannot execute a switch statement where all the cases evaluate to false without a default.',
        );
      return deflt;
    }
    const fallback = deflt;
    const evaluate = (frame: Frame): Value => {
      for (const [c, t] of live) if (toBool(c.evaluate(frame))) return t.evaluate(frame);
      if (fallback === undefined)
        fail(
          ErrorCode.Location40066,
          '$switch could not find a matching branch for an input, and no default was specified.',
        );
      return fallback.evaluate(frame);
    };
    return { kind: 'operator', op: '$switch', evaluate };
  },
};

export const conditionalOperators: readonly OperatorDefinition[] = [$cond, $ifNull, $switch];
