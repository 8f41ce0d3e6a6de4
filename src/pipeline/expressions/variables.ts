// Variables at parse time: scopes, slot allocation and mongod's rules for variable names
// (src/mongo/db/pipeline/variable_validation.cpp).

import { fail, ErrorCode } from '../../errors.js';
import type { Binding, ExpressionEnv, ParseContext, Value, VariableScope } from './types.js';

/** Variables the system defines; users may read them but only CURRENT may be rebound. */
export const BUILTIN_VARIABLES = new Set([
  'ROOT',
  'CURRENT',
  'REMOVE',
  'NOW',
  'CLUSTER_TIME',
  'DESCEND',
  'PRUNE',
  'KEEP',
  'SEARCH_META',
  'USER_ROLES',
]);

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function checkRest(name: string, code: number): void {
  for (let i = 1; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!(isLower(c) || isUpper(c) || isDigit(c) || c === 95 || c >= 0x80)) {
      fail(code, `'${name}' contains an invalid character for a variable name: '${name[i] ?? ''}'`);
    }
  }
}

/** A name a user may define ($let vars, `as`, `let`): starts with a lowercase or non-ASCII letter. */
export function validateNameForUserWrite(name: string): void {
  if (name === 'CURRENT') return;
  if (name.length === 0) fail(ErrorCode.Location16866, 'empty variable names are not allowed');
  const c = name.charCodeAt(0);
  if (!(isLower(c) || c >= 0x80))
    fail(
      ErrorCode.Location16867,
      `'${name}' starts with an invalid character for a user variable name`,
    );
  checkRest(name, ErrorCode.Location16868);
}

/** A name a user may read ($$name): system variables start with an uppercase letter. */
export function validateNameForUserRead(name: string): void {
  if (name.length === 0) fail(ErrorCode.Location16869, 'empty variable names are not allowed');
  const c = name.charCodeAt(0);
  if (!(isLower(c) || isUpper(c) || c >= 0x80))
    fail(ErrorCode.Location16870, `'${name}' starts with an invalid character for a variable name`);
  checkRest(name, ErrorCode.Location16871);
}

export function newScope(parent: VariableScope | undefined): VariableScope {
  return { parent, names: new Map() };
}

/** Allocates a frame slot for a variable defined in `scope`. */
export function defineVariable(env: ExpressionEnv, scope: VariableScope, name: string): number {
  const slot = env.nextSlot++;
  env.frame.vars[slot] = undefined;
  scope.names.set(name, { slot });
  return slot;
}

/** Binds a name to a value known at parse time (the command's `let`, $$NOW-like constants). */
export function defineConstant(scope: VariableScope, name: string, value: Value): void {
  scope.names.set(name, { constant: value });
}

export function lookupVariable(scope: VariableScope, name: string): Binding | undefined {
  for (let s: VariableScope | undefined = scope; s !== undefined; s = s.parent) {
    const b = s.names.get(name);
    if (b !== undefined) return b;
  }
  return undefined;
}

/** A child context whose scope is a fresh child of `ctx`'s scope. */
export function withChildScope(ctx: ParseContext): { ctx: ParseContext; scope: VariableScope } {
  const scope = newScope(ctx.scope);
  const child: ParseContext = {
    ...ctx,
    scope,
    parse: (spec, inner) => ctx.parse(spec, inner ?? child),
  };
  return { ctx: child, scope };
}
