// Object operators: $objectToArray $arrayToObject $getField $setField $unsetField
// ($mergeObjects is an accumulator, registered with them).

import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { deleteOwn, getOwn, hasOwn, setOwn } from '../../bson/document.js';
import { fail, ErrorCode } from '../../errors.js';
import { formatValue, isNullish, typeName } from '../values.js';
import { parseFieldPathExpression } from './field-path.js';
import { operatorExpression, unaryOperator } from './operator.js';
import { MISSING } from './types.js';
import type { Expression, Frame, OperatorDefinition, ParseContext, Value } from './types.js';

const $objectToArray = unaryOperator('$objectToArray', (v) => {
  if (isNullish(v)) return null;
  if (!isPlainDocument(v))
    fail(
      ErrorCode.Location40390,
      `$objectToArray requires a document input, found: ${typeName(v)}`,
    );
  return Object.entries(v).map(([k, x]) => ({ k, v: x }));
});

const $arrayToObject = unaryOperator('$arrayToObject', (input) => {
  if (isNullish(input)) return null;
  if (!isArray(input))
    fail(
      ErrorCode.Location40386,
      `$arrayToObject requires an array input, found: ${typeName(input)}`,
    );
  const out: BsonDocument = {};
  if (input.length === 0) return out;
  const first = input[0] as BsonValue;
  const pairs = isArray(first);
  if (!pairs && !isPlainDocument(first))
    fail(
      ErrorCode.Location40398,
      `Unrecognised input type format for $arrayToObject: ${typeName(first)}`,
    );
  for (const el of input) {
    if (pairs) {
      if (!isArray(el))
        fail(
          ErrorCode.Location40396,
          `$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Array was detected, now found: ${typeName(el)}`,
        );
      if (el.length !== 2)
        fail(
          ErrorCode.Location40397,
          `$arrayToObject requires an array of size 2 arrays,found array of size: ${el.length}`,
        );
      const key = el[0] as BsonValue;
      if (typeof key !== 'string')
        fail(
          ErrorCode.Location40395,
          `$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: ${typeName(key)}`,
        );
      if (key.includes('\0'))
        fail(ErrorCode.Location4940400, 'Key field cannot contain an embedded null byte');
      setOwn(out, key, el[1] as BsonValue);
    } else {
      if (!isPlainDocument(el))
        fail(
          ErrorCode.Location40391,
          `$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Object was detected, now found: ${typeName(el)}`,
        );
      const n = Object.keys(el).length;
      if (n !== 2)
        fail(
          ErrorCode.Location40392,
          `$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:${n}`,
        );
      if (!hasOwn(el, 'k') || !hasOwn(el, 'v'))
        fail(
          ErrorCode.Location40393,
          `$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: ${formatValue(el)}`,
        );
      const key = getOwn(el, 'k');
      if (typeof key !== 'string')
        fail(
          ErrorCode.Location40394,
          `$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: ${typeName(key ?? null)}`,
        );
      if (key.includes('\0'))
        fail(ErrorCode.Location4940401, 'Key field cannot contain an embedded null byte');
      setOwn(out, key, getOwn(el, 'v') ?? null);
    }
  }
  return out;
});

/**
 * Whether an expression spec is a constant as written (mongod's ExpressionConstant before
 * optimize()): a literal, or $const/$literal. An operator that would fold to a constant, an
 * object or an array expression is not.
 */
function isLiteralSpec(spec: BsonValue): boolean {
  if (typeof spec === 'string') return !spec.startsWith('$');
  if (isArray(spec)) return false;
  if (isPlainDocument(spec)) {
    const keys = Object.keys(spec);
    return keys.length === 1 && (keys[0] === '$const' || keys[0] === '$literal');
  }
  return true;
}

/** The 'field' argument of $getField/$setField: a string constant as written (not a field path). */
function constantField(
  name: string,
  field: Expression,
  pathCode: number,
  constCode: number,
  typeCode: number,
  spec: BsonValue,
): string {
  if (typeof spec === 'string' && spec.startsWith('$')) {
    fail(
      pathCode,
      `'${spec}' is a field path reference which is not allowed in this context. Did you mean {$literal: '${spec}'}?`,
    );
  }
  if (!isLiteralSpec(spec) || field.kind !== 'constant')
    fail(
      constCode,
      `${name} requires 'field' to evaluate to a constant, but got a non-constant argument`,
    );
  const v = field.value ?? null;
  if (typeof v !== 'string')
    fail(typeCode, `${name} requires 'field' to evaluate to type String, but got ${typeName(v)}`);
  return v;
}

const $getField: OperatorDefinition = {
  name: '$getField',
  parse(arg, ctx) {
    let fieldSpec: BsonValue | undefined;
    let field: Expression | undefined;
    let input: Expression | undefined;
    if (isPlainDocument(arg)) {
      const entries = Object.entries(arg);
      const firstKey = entries[0]?.[0];
      if (firstKey !== undefined && firstKey.startsWith('$')) {
        fieldSpec = arg;
        field = ctx.parse(arg);
        input = currentDocument(ctx);
      } else {
        for (const [k, v] of entries) {
          if (k === 'field') {
            fieldSpec = v;
            field = ctx.parse(v);
          } else if (k === 'input') input = ctx.parse(v);
          else fail(ErrorCode.Location3041701, `$getField found an unknown argument: ${k}`);
        }
      }
    } else {
      fieldSpec = arg;
      field = ctx.parse(arg);
      input = currentDocument(ctx);
    }
    if (field === undefined)
      fail(ErrorCode.Location3041702, "$getField requires 'field' to be specified");
    if (input === undefined)
      fail(ErrorCode.Location3041703, "$getField requires 'input' to be specified");
    const name = constantField(
      '$getField',
      field,
      ErrorCode.Location5654600,
      ErrorCode.Location5654601,
      ErrorCode.Location5654602,
      fieldSpec ?? null,
    );
    const inputE = input;
    const evaluate = (frame: Frame): Value => {
      const v = inputE.evaluate(frame);
      if (v === MISSING) return MISSING;
      if (isNullish(v)) return null;
      if (!isPlainDocument(v)) return MISSING;
      return hasOwn(v, name) ? (v[name] as BsonValue) : MISSING;
    };
    return operatorExpression('$getField', [inputE], evaluate, { fold: false });
  },
};

function currentDocument(ctx: ParseContext): Expression {
  return parseFieldPathExpression('$$CURRENT', ctx);
}

function setFieldOperator(name: '$setField' | '$unsetField'): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      if (!isPlainDocument(arg))
        fail(ErrorCode.Location4161100, `${name} only supports an object as its argument`);
      let fieldSpec: BsonValue | undefined;
      let field: Expression | undefined;
      let input: Expression | undefined;
      let value: Expression | undefined;
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'field') {
          fieldSpec = v;
          field = ctx.parse(v);
        } else if (k === 'input') input = ctx.parse(v);
        else if (name === '$setField' && k === 'value') value = ctx.parse(v);
        else fail(ErrorCode.Location4161101, `${name} found an unknown argument: ${k}`);
      }
      if (name === '$unsetField')
        value = { kind: 'constant', value: MISSING, evaluate: () => MISSING };
      if (field === undefined)
        fail(ErrorCode.Location4161102, `${name} requires 'field' to be specified`);
      if (value === undefined)
        fail(ErrorCode.Location4161103, `${name} requires 'value' to be specified`);
      if (input === undefined)
        fail(ErrorCode.Location4161109, `${name} requires 'input' to be specified`);
      const key = constantField(
        name,
        field,
        ErrorCode.Location4161108,
        ErrorCode.Location4161106,
        ErrorCode.Location4161107,
        fieldSpec ?? null,
      );
      const inputE = input;
      const valueE = value;
      const evaluate = (frame: Frame): Value => {
        const v = inputE.evaluate(frame);
        if (isNullish(v)) return null;
        if (!isPlainDocument(v))
          fail(ErrorCode.Location4161105, "$setField requires 'input' to evaluate to type Object");
        const out: BsonDocument = { ...v };
        const nv = valueE.evaluate(frame);
        if (nv === MISSING) deleteOwn(out, key);
        else setOwn(out, key, nv);
        return out;
      };
      return operatorExpression(name, [inputE, valueE], evaluate, { fold: false });
    },
  };
}

export const objectOperators: readonly OperatorDefinition[] = [
  $objectToArray,
  $arrayToObject,
  $getField,
  setFieldOperator('$setField'),
  setFieldOperator('$unsetField'),
];
