// Miscellaneous operators: $literal/$const, $let, $rand, $meta, $tsSecond/$tsIncrement,
// $bsonSize/$binarySize, and the server-side JavaScript operators ($function), which parse as in
// mongod but fail when evaluated: this server has no JavaScript engine, and mongod answers the
// same way when scripting is disabled (31264).

import { Binary, Code, Double, Int32, Long, Timestamp } from 'bson';
import type { ScriptFunction, ScriptScope } from '../../js/engine.js';
import { bsonSize } from '../../bson/codec.js';
import { hashBsonValue } from '../../bson/hash.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { isNullish, typeName } from '../values.js';
import { constant, operatorExpression, unaryOperator } from './operator.js';
import { defineVariable, validateNameForUserWrite, withChildScope } from './variables.js';
import { MISSING, ROOT_SLOT } from './types.js';
import { META_FIELD_NAMES, metadataOf } from '../../query/exec/metadata.js';
import type { Frame, OperatorDefinition, Value } from './types.js';

const $literal: OperatorDefinition = { name: '$literal', parse: (arg) => constant(arg) };
const $const: OperatorDefinition = { name: '$const', parse: (arg) => constant(arg) };

const $let: OperatorDefinition = {
  name: '$let',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location16874, '$let only supports an object as its argument');
    let vars: BsonValue | undefined;
    let inSpec: BsonValue | undefined;
    let hasIn = false;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'vars') vars = v;
      else if (k === 'in') {
        inSpec = v;
        hasIn = true;
      } else fail(ErrorCode.Location16875, `Unrecognized parameter to $let: ${k}`);
    }
    if (vars === undefined) fail(ErrorCode.Location16876, "Missing 'vars' parameter to $let");
    if (!hasIn) fail(ErrorCode.Location16877, "Missing 'in' parameter to $let");
    if (!isPlainDocument(vars))
      fail(ErrorCode.Location10065, 'invalid parameter: expected an object (vars)');
    // The variables' expressions see only the outer scope; `in` sees the new variables.
    const defs = Object.entries(vars).map(([name, spec]) => ({ name, expr: ctx.parse(spec) }));
    const child = withChildScope(ctx);
    const bound = defs.map(({ name, expr }) => {
      validateNameForUserWrite(name);
      return { slot: defineVariable(ctx.env, child.scope, name), expr };
    });
    const body = child.ctx.parse(inSpec ?? null);
    if (bound.length === 0) return body;
    const evaluate = (frame: Frame): Value => {
      for (const { slot, expr } of bound) frame.vars[slot] = expr.evaluate(frame);
      return body.evaluate(frame);
    };
    return { kind: 'operator', op: '$let', evaluate };
  },
};

const $rand: OperatorDefinition = {
  name: '$rand',
  parse(arg, ctx) {
    if (ctx.env.forbidRandom === true)
      fail(ErrorCode.Location3040500, '$rand not allowed inside collection validators');
    if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
      fail(ErrorCode.Location3040501, '$rand does not currently accept arguments');
    return operatorExpression('$rand', [], () => new Double(Math.random()), { fold: false });
  },
};

/**
 * $meta: the metadata of the document being evaluated ($$ROOT): the text score of a $text
 * search, the distance and point of $geoNear; missing where no stage produced it (and for the
 * kinds nothing here produces: search scores, index keys...).
 */
const $meta: OperatorDefinition = {
  name: '$meta',
  parse(arg) {
    if (typeof arg !== 'string')
      fail(ErrorCode.Location17307, '$meta only supports string arguments');
    if (!META_FIELD_NAMES.has(arg))
      fail(ErrorCode.Location17308, `Unsupported argument to $meta: ${arg}`);
    const read = (frame: Frame): Value => {
      const root = frame.vars[ROOT_SLOT];
      const meta = isPlainDocument(root) ? metadataOf(root) : undefined;
      if (meta === undefined) return MISSING;
      if (arg === 'textScore')
        return meta.textScore === undefined ? MISSING : new Double(meta.textScore);
      if (arg === 'geoNearDistance')
        return meta.geoNearDistance === undefined ? MISSING : new Double(meta.geoNearDistance);
      if (arg === 'geoNearPoint') return meta.geoNearPoint ?? MISSING;
      return MISSING;
    };
    return { kind: 'operator', op: '$meta', evaluate: read };
  },
};

function timestampPart(name: string, part: (t: Timestamp) => number): OperatorDefinition {
  return unaryOperator(name, (v) => {
    if (isNullish(v)) return null;
    if (!(v instanceof Timestamp))
      fail(
        name === '$tsSecond' ? ErrorCode.Location5687301 : ErrorCode.Location5687302,
        ` Argument to ${name} must be a timestamp, but is ${typeName(v)}`,
      );
    return Long.fromNumber(part(v));
  });
}

/**
 * $toHashedIndexKey: the key a hashed index stores for a value (mongod's hash of it; missing
 * hashes as null). The operand is one expression: an array literal is an array to hash.
 */
const $toHashedIndexKey: OperatorDefinition = {
  name: '$toHashedIndexKey',
  parse(arg, ctx) {
    const operand = ctx.parse(arg);
    return operatorExpression('$toHashedIndexKey', [operand], (frame) => {
      const v = operand.evaluate(frame);
      return hashBsonValue(v === MISSING ? null : v);
    });
  },
};

const $bsonSize = unaryOperator('$bsonSize', (v) => {
  if (isNullish(v)) return null;
  if (!isPlainDocument(v))
    fail(ErrorCode.Location31393, `$bsonSize requires a document input, found: ${typeName(v)}`);
  return new Int32(bsonSize(v));
});

const $binarySize = unaryOperator('$binarySize', (v) => {
  if (isNullish(v)) return null;
  if (typeof v === 'string') return new Int32(Buffer.byteLength(v, 'utf8'));
  if (v instanceof Binary) return new Int32(v.position);
  fail(
    ErrorCode.Location51276,
    `$binarySize requires a string or BinData argument, found: ${typeName(v)}`,
  );
});

function noJavaScript(): never {
  fail(
    ErrorCode.Location31264,
    'Cannot run server-side javascript without the javascript engine enabled',
  );
}

const $function: OperatorDefinition = {
  name: '$function',
  parse(arg, ctx) {
    if (ctx.env.forbidRandom === true)
      fail(ErrorCode.Location4660800, '$function cannot be used inside a validator.');
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location31260,
        `$function requires an object as an argument, found: ${typeName(arg)}`,
      );
    const spec = arg as BsonDocument;
    for (const k of Object.keys(spec)) {
      if (k !== 'body' && k !== 'args' && k !== 'lang')
        fail(ErrorCode.Location31267, `$function found an unknown argument: ${k}`);
    }
    if (spec['body'] === undefined)
      fail(ErrorCode.Location31261, 'The body function must be specified.');
    const body = ctx.parse(spec['body']);
    if (body.kind !== 'constant')
      fail(ErrorCode.Location31432, 'The body function must be a constant expression');
    const code = body.value;
    if (typeof code !== 'string' && !(code instanceof Code))
      fail(ErrorCode.Location31262, 'The body function must evaluate to type string or code');
    if (spec['args'] === undefined)
      fail(ErrorCode.Location31263, 'The args field must be specified.');
    const args = ctx.parse(spec['args']);
    if (spec['lang'] === undefined)
      fail(ErrorCode.Location31418, 'The lang field must be specified.');
    if (spec['lang'] !== 'js')
      fail(ErrorCode.Location31419, "Currently the only supported language specifier is 'js'.");
    const host = ctx.env.scripting;
    if (host === undefined) return { kind: 'operator', op: '$function', evaluate: noJavaScript };
    const source = typeof code === 'string' ? code : String(code.code);
    let compiled: { scope: ScriptScope; fn: ScriptFunction } | undefined;
    return {
      kind: 'operator',
      op: '$function',
      evaluate(frame) {
        const argValue = args.evaluate(frame);
        if (!isArray(argValue))
          fail(ErrorCode.Location31266, 'The args field must be of type array');
        if (compiled === undefined) {
          const scope = host.scope();
          compiled = { scope, fn: scope.compile(source) };
        }
        const values = (argValue as Value[]).map((v) => (v === MISSING ? undefined : v));
        return compiled.scope.call(compiled.fn, values as BsonValue[]);
      },
    };
  },
};

export const miscOperators: readonly OperatorDefinition[] = [
  $literal,
  $const,
  $let,
  $rand,
  $meta,
  timestampPart('$tsSecond', (t) => t.t),
  timestampPart('$tsIncrement', (t) => t.i),
  $bsonSize,
  $binarySize,
  $toHashedIndexKey,
  $function,
];

export { noJavaScript };
