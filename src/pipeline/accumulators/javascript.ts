// $accumulator: a user-defined accumulator in JavaScript (mongod's AccumulatorJs). `init`
// makes the state of a group from `initArgs` (evaluated once per group, against the group key),
// `accumulate` folds each document's `accumulateArgs` into it, `finalize` (optional) turns it
// into the result. `merge` is required, as mongod requires it, but a single server never has
// two partial states of one group to merge. The functions run in the command's sandbox
// (src/js); without one (--noscripting) the answer is mongod's 31264.

import { Code } from 'bson';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { fail, ErrorCode } from '../../errors.js';
import { typeName } from '../values.js';
import { MISSING } from '../expressions/types.js';
import { noJavaScript } from '../expressions/misc.js';
import type { Value } from '../expressions/types.js';
import type { ScriptFunction, ScriptScope } from '../../js/engine.js';
import { SCALAR_STATE_BYTES } from './types.js';
import type { AccumulatorDefinition } from './types.js';

const NAME = '$accumulator';
const FIELDS = new Set([
  'init',
  'initArgs',
  'accumulate',
  'accumulateArgs',
  'merge',
  'finalize',
  'lang',
]);

function functionSource(spec: BsonDocument, field: string, required: boolean): string | undefined {
  const v = getOwn(spec, field);
  if (v === undefined) {
    if (required) fail(ErrorCode.Location4544702, `${NAME} missing required argument '${field}'`);
    return undefined;
  }
  if (typeof v === 'string') return v;
  if (v instanceof Code) return String(v.code);
  fail(
    ErrorCode.Location4544703,
    `${NAME} '${field}' must be a String or Code, but got ${typeName(v)}`,
  );
}

function asArgs(v: Value, field: string): BsonValue[] {
  if (!isArray(v))
    fail(ErrorCode.Location4544704, `${NAME} '${field}' must evaluate to an array: ${typeName(v)}`);
  return (v as Value[]).map((e) => (e === MISSING ? undefined : e)) as BsonValue[];
}

export const $accumulator: AccumulatorDefinition = {
  name: NAME,
  parse(arg, ctx) {
    if (ctx.env.forbidRandom === true)
      fail(ErrorCode.Location4660801, `${NAME} cannot be used inside a validator.`);
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location4544702,
        `${NAME} expects an object as an argument, found: ${typeName(arg)}`,
      );
    const spec = arg as BsonDocument;
    for (const k of Object.keys(spec)) {
      if (!FIELDS.has(k))
        fail(ErrorCode.Location4544702, `${NAME} got an unrecognized field: ${k}`);
    }
    const init = functionSource(spec, 'init', true) ?? '';
    const accumulate = functionSource(spec, 'accumulate', true) ?? '';
    functionSource(spec, 'merge', true);
    const finalize = functionSource(spec, 'finalize', false);
    const accumulateArgsSpec = getOwn(spec, 'accumulateArgs');
    if (accumulateArgsSpec === undefined)
      fail(ErrorCode.Location4544702, `${NAME} missing required argument 'accumulateArgs'`);
    const accumulateArgs = ctx.parse(accumulateArgsSpec);
    const initArgsSpec = getOwn(spec, 'initArgs');
    const initArgs = initArgsSpec === undefined ? undefined : ctx.parse(initArgsSpec);
    const lang = getOwn(spec, 'lang');
    if (lang === undefined)
      fail(ErrorCode.Location4544702, `${NAME} missing required argument 'lang'`);
    if (lang !== 'js')
      fail(
        ErrorCode.Location4544705,
        `${NAME} only supports lang: 'js', but got ${typeName(lang)}`,
      );
    const host = ctx.env.scripting;
    let fns:
      | { scope: ScriptScope; init: ScriptFunction; acc: ScriptFunction; fin?: ScriptFunction }
      | undefined;
    const functions = (): NonNullable<typeof fns> => {
      if (host === undefined) noJavaScript();
      if (fns === undefined) {
        const scope = host.scope();
        fns = {
          scope,
          init: scope.compile(init),
          acc: scope.compile(accumulate),
          ...(finalize === undefined ? {} : { fin: scope.compile(finalize) }),
        };
      }
      return fns;
    };
    return {
      name: NAME,
      argument: accumulateArgs,
      ...(initArgs === undefined ? {} : { initializer: initArgs }),
      create(initial) {
        const f = functions();
        const initValues = initArgs === undefined ? [] : asArgs(initial, 'initArgs');
        let state: BsonValue = f.scope.call(f.init, initValues);
        return {
          bytes: SCALAR_STATE_BYTES,
          needsInput: true,
          process(value) {
            state = f.scope.call(f.acc, [state, ...asArgs(value, 'accumulateArgs')]);
          },
          value() {
            return f.fin === undefined ? state : f.scope.call(f.fin, [state]);
          },
        };
      },
    };
  },
};
