// Regular-expression operators: $regexMatch $regexFind $regexFindAll. Patterns use PCRE syntax
// in mongod; they are translated to JavaScript RegExps by the matcher's translator
// (src/query/match/regex.ts), which refuses what JavaScript cannot express. Match positions
// (`idx`) are in code points, as mongod reports them.

import { Int32 } from 'bson';
import { BSONRegExp, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { CommandError, fail, ErrorCode } from '../../errors.js';
import { parseRegexFlags, translatePcre } from '../../query/match/regex.js';
import { guardRegex } from '../../query/match/regex-guard.js';
import type { GuardedRegex } from '../../query/match/regex-guard.js';
import { isNullish, typeName } from '../values.js';
import { operatorExpression } from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

interface Parsed {
  input: Expression;
  regex: Expression;
  options: Expression | undefined;
}

function parseArgs(
  name: string,
  arg: BsonValue,
  ctx: Parameters<OperatorDefinition['parse']>[1],
): Parsed {
  if (!isPlainDocument(arg))
    fail(
      ErrorCode.Location51103,
      `${name} expects an object of named arguments but found: ${typeName(arg)}`,
    );
  let input: Expression | undefined;
  let regex: Expression | undefined;
  let options: Expression | undefined;
  for (const [k, v] of Object.entries(arg)) {
    if (k === 'input') input = ctx.parse(v);
    else if (k === 'regex') regex = ctx.parse(v);
    else if (k === 'options') options = ctx.parse(v);
    else fail(ErrorCode.Location31024, `${name} found an unknown argument: ${k}`);
  }
  if (input === undefined) fail(ErrorCode.Location31022, `${name} requires 'input' parameter`);
  if (regex === undefined) fail(ErrorCode.Location31023, `${name} requires 'regex' parameter`);
  return { input, regex, options };
}

/** Pattern and options from the evaluated 'regex' and 'options' (mongod's _extractRegexAndOptions). */
function compile(name: string, pattern: Value, options: Value): GuardedRegex | undefined {
  if (!(isNullish(pattern) || typeof pattern === 'string' || pattern instanceof BSONRegExp)) {
    fail(ErrorCode.Location51105, `${name} needs 'regex' to be of type string or regex`);
  }
  if (!(isNullish(options) || typeof options === 'string'))
    fail(ErrorCode.Location51106, `${name} needs 'options' to be of type string`);
  let source: string | undefined;
  let flags = '';
  if (pattern instanceof BSONRegExp) {
    source = pattern.pattern;
    if (!isNullish(options) && pattern.options.length > 0) {
      fail(
        ErrorCode.Location51107,
        `${name}: found regex option(s) specified in both 'regex' and 'option' fields`,
      );
    }
    flags = pattern.options;
  } else if (typeof pattern === 'string') {
    source = pattern;
  }
  if (typeof options === 'string') flags = options;
  if (source !== undefined && source.includes('\0'))
    fail(
      ErrorCode.Location51109,
      `${name}: regular expression cannot contain an embedded null byte`,
    );
  if (flags.includes('\0'))
    fail(
      ErrorCode.Location51110,
      `${name}: regular expression options cannot contain an embedded null byte`,
    );
  if (source === undefined) return undefined;
  const parsedFlags = parseRegexFlags(flags, name);
  try {
    const { source: js, ignoreCase } = translatePcre(source, parsedFlags);
    return guardRegex(new RegExp(js, ignoreCase ? 'giu' : 'gu'), name);
  } catch (e) {
    const reason =
      e instanceof CommandError || e instanceof Error
        ? e.message
            .replace(/^Regular expression is invalid: /, '')
            .replace(/^Invalid regular expression: /, '')
        : 'syntax error';
    fail(ErrorCode.Location51111, `Invalid Regex in ${name}: ${reason}`);
  }
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** One match from UTF-16 offset `from`, as {match, idx, captures}. */
function matchAt(
  re: GuardedRegex,
  input: string,
  from: number,
): { doc: BsonDocument; index: number; length: number } | undefined {
  const m = re.exec(input, from);
  if (m === null) return undefined;
  const whole = m.groups[0] ?? '';
  const captures = m.groups.slice(1).map((c) => (c === undefined ? null : c));
  return {
    doc: { match: whole, idx: new Int32(codePointLength(input.slice(0, m.index))), captures },
    index: m.index,
    length: whole.length,
  };
}

type Mode = 'match' | 'find' | 'findAll';

function regexOperator(name: string, mode: Mode): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const { input, regex, options } = parseArgs(name, arg, ctx);
      // A constant pattern is compiled once (mongod does the same in optimize()).
      const fixed =
        regex.kind === 'constant' && (options === undefined || options.kind === 'constant')
          ? { re: compile(name, regex.value ?? null, options?.value ?? null) }
          : undefined;
      const evaluate = (frame: Frame): Value => {
        const text = input.evaluate(frame);
        if (!(isNullish(text) || typeof text === 'string'))
          fail(ErrorCode.Location51104, `${name} needs 'input' to be of type string`);
        const re =
          fixed !== undefined
            ? fixed.re
            : compile(name, regex.evaluate(frame), options?.evaluate(frame) ?? null);
        if (typeof text !== 'string' || re === undefined)
          return mode === 'match' ? false : mode === 'find' ? null : [];
        if (mode === 'match') return re.test(text);
        if (mode === 'find') return matchAt(re, text, 0)?.doc ?? null;
        const out: BsonDocument[] = [];
        let pos = 0;
        do {
          const m = matchAt(re, text, pos);
          if (m === undefined) break;
          out.push(m.doc);
          // An empty match moves on by one code point so the scan always advances.
          pos =
            m.length === 0
              ? m.index + ((text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1)
              : m.index + m.length;
        } while (pos < text.length);
        return out;
      };
      return operatorExpression(name, [input, regex, options], evaluate, {
        fold: input.kind === 'constant',
      });
    },
  };
}

export const regexOperators: readonly OperatorDefinition[] = [
  regexOperator('$regexMatch', 'match'),
  regexOperator('$regexFind', 'find'),
  regexOperator('$regexFindAll', 'findAll'),
];
