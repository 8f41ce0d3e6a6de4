// Server-side JavaScript ($where, $function, $accumulator, mapReduce) in a sandbox: QuickJS
// compiled to WebAssembly (quickjs-emscripten). The sandbox is a separate interpreter with its
// own heap inside the wasm memory: it has the language's standard objects and the prelude's
// BSON types, and nothing of Node (no require, process, timers, file system or network);
// values cross only as text (marshal.ts). Each scope is one QuickJS runtime with its own
// memory limit; every call has a time limit, and the interrupt handler also stops it when the
// operation is killed (killOp) or its maxTimeMS passes. Calls run synchronously on the event
// loop, so the per-call limit bounds how long one call can keep other clients waiting; scans
// that call per document yield between documents as every plan stage does.

import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
// The namespace ({default: variant}) works under both the ESM and the CommonJS build.
import * as variant from '@jitl/quickjs-wasmfile-release-sync';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode, invariant } from '../errors.js';
import { limits } from '../limits.js';
import { fromSandbox, toSandbox } from './marshal.js';
import { SANDBOX_PRELUDE } from './prelude.js';

/** What bounds the calls of one operation: its deadline and its kill flag. */
export interface ScriptOperation {
  readonly deadlineMs: number | undefined;
  readonly signal: AbortSignal;
}

/** The loaded engine (one wasm module per process), shared by every server that runs scripts. */
export interface ScriptEngine {
  /** A fresh sandbox for one operation's code; dispose it when the operation is done. */
  newScope(op: ScriptOperation): ScriptScope;
}

/**
 * The scripting of one command: one sandbox, made when the command's first script is compiled
 * and shared by all of them (mongod's scope of one operation), freed with the command.
 */
export interface ScriptHost {
  scope(): ScriptScope;
  /** Frees the sandbox, when the command knows it is done (else it goes with the command). */
  dispose(): void;
}

/** The host of a command, or undefined when scripting is off (--noscripting). */
export function scriptHost(
  engine: ScriptEngine | undefined,
  op: ScriptOperation,
): ScriptHost | undefined {
  if (engine === undefined) return undefined;
  let scope: ScriptScope | undefined;
  return {
    scope: () => (scope ??= engine.newScope(op)),
    dispose() {
      scope?.dispose();
      scope = undefined;
    },
  };
}

let loading: Promise<ScriptEngine> | undefined;

/** Loads (once per process) and returns the engine. */
export function loadScriptEngine(): Promise<ScriptEngine> {
  loading ??= newQuickJSWASMModuleFromVariant(
    Promise.resolve(variant as { default: QuickJSSyncVariant }),
  ).then((module): ScriptEngine => ({ newScope: (op) => new ScriptScope(module, op) }));
  return loading;
}

/** A compiled function inside a scope. */
export interface ScriptFunction {
  readonly id: number;
}

/** Scopes no one disposed explicitly are freed once their owner is collected. */
const orphans = new FinalizationRegistry<() => void>((dispose) => dispose());

/**
 * mongod's rule for code that is not a function (Scope::createFunction): a single line with
 * no `return` and no inner `;` is an expression whose value is returned; anything else is a
 * function body (mongod's rule; a single line that does not parse as an expression is a body).
 */
function asFunctionSource(code: string): { src: string; asBody: boolean | 'expression' } {
  const trimmed = code.trim();
  if (
    /^(async\s+)?function[\s*(]/.test(trimmed) ||
    /^(async\s+)?(\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>/.test(trimmed)
  )
    return { src: trimmed, asBody: false };
  const semicolon = trimmed.indexOf(';');
  const single =
    !trimmed.includes('\n') &&
    !/\breturn\b/.test(trimmed) &&
    (semicolon === -1 || semicolon === trimmed.length - 1);
  // A single line that is not an expression (`while (x) {}`) is a body after all.
  return { src: trimmed, asBody: single ? 'expression' : true };
}

type Interruption = 'killed' | 'maxTime' | 'callTime' | undefined;

export class ScriptScope {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly api: {
    compile: QuickJSHandle;
    call: QuickJSHandle;
    takeEmits: QuickJSHandle;
    setGlobal: QuickJSHandle;
    self: QuickJSHandle;
  };
  private callDeadlineMs = 0;
  private interruption: Interruption;
  private disposed = false;
  /**
   * Set once the code ran out of memory: QuickJS may then leave objects behind, and freeing
   * such a runtime aborts the whole wasm module, so its memory is left to the module.
   */
  private tainted = false;
  /** A token registered with the finalizer, so that dispose() can unregister it. */
  private readonly token = {};

  constructor(
    module: QuickJSWASMModule,
    private readonly op: ScriptOperation,
  ) {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.jsHeapBytesMax);
    runtime.setMaxStackSize(limits.jsStackBytesMax);
    // The prelude is this server's code: only the operation's own bounds apply to it (a cold
    // wasm module on a busy machine can take longer than one call's limit to run it).
    this.callDeadlineMs = Number.POSITIVE_INFINITY;
    runtime.setInterruptHandler(() => this.shouldInterrupt());
    const context = runtime.newContext();
    this.runtime = runtime;
    this.context = context;
    this.interruption = undefined;
    const made = context.evalCode(SANDBOX_PRELUDE, 'prelude.js');
    if (made.error !== undefined) {
      const dumped: unknown = context.dump(made.error);
      made.error.dispose();
      context.dispose();
      runtime.dispose();
      // Killed or past its maxTimeMS while the sandbox was being made.
      if (this.interruption !== undefined) throw this.errorOf(dumped);
      invariant(false, `the sandbox prelude failed: ${JSON.stringify(dumped)}`);
    }
    const self = made.value;
    this.api = {
      self,
      compile: context.getProp(self, 'compile'),
      call: context.getProp(self, 'call'),
      takeEmits: context.getProp(self, 'takeEmits'),
      setGlobal: context.getProp(self, 'setGlobal'),
    };
    const api = this.api;
    orphans.register(
      this,
      () => {
        try {
          for (const h of Object.values(api)) h.dispose();
          context.dispose();
          runtime.dispose();
        } catch {
          // As in dispose().
        }
      },
      this.token,
    );
  }

  /** Frees the sandbox (its runtime and heap). Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    orphans.unregister(this.token);
    try {
      for (const h of Object.values(this.api)) h.dispose();
      this.context.dispose();
      if (!this.tainted) this.runtime.dispose();
    } catch {
      // A runtime QuickJS cannot free cleanly stays allocated; the engine goes on.
    }
  }

  private shouldInterrupt(): boolean {
    if (this.op.signal.aborted) this.interruption = 'killed';
    else {
      const now = Date.now();
      if (this.op.deadlineMs !== undefined && now > this.op.deadlineMs)
        this.interruption = 'maxTime';
      else if (now > this.callDeadlineMs) this.interruption = 'callTime';
    }
    return this.interruption !== undefined;
  }

  /** Compiles a function (source of a function, or code as mongod's $where takes it). */
  compile(code: string): ScriptFunction {
    const { src, asBody } = asFunctionSource(code);
    const text = this.callApi(this.api.compile, [src, asBody]);
    const id = Number(text);
    invariant(Number.isInteger(id), 'compile returns an index');
    return { id };
  }

  /**
   * Calls `fn` with `args` and `self` as `this` (and as the global `obj` when `setObj`, as
   * $where has it); returns what it returned, as a BSON value.
   */
  call(
    fn: ScriptFunction,
    args: readonly BsonValue[],
    self?: BsonDocument,
    setObj = false,
  ): BsonValue {
    const text = this.callApi(this.api.call, [
      fn.id,
      self === undefined ? '' : toSandbox(self),
      toSandbox(args as BsonValue[]),
      setObj,
    ]);
    return fromSandbox(text);
  }

  /** The (key, value) pairs `emit` collected since the last call, and clears them. */
  takeEmits(): Array<[BsonValue, BsonValue]> {
    const value = fromSandbox(this.callApi(this.api.takeEmits, []));
    invariant(Array.isArray(value), 'emits are an array');
    return value.map((pair) => {
      invariant(Array.isArray(pair) && pair.length === 2, 'an emit is a pair');
      return [pair[0] as BsonValue, pair[1] as BsonValue];
    });
  }

  /** Defines a global variable of the sandbox (mapReduce's scope). */
  setGlobal(name: string, value: BsonValue): void {
    this.callApi(this.api.setGlobal, [name, toSandbox(value)]);
  }

  /** One call into the sandbox's API: primitives in, the returned text (stringified) out. */
  private callApi(fn: QuickJSHandle, args: ReadonlyArray<string | number | boolean>): string {
    invariant(!this.disposed, 'script scope used after dispose');
    const ctx = this.context;
    const handles = args.map((a) =>
      typeof a === 'string'
        ? ctx.newString(a)
        : typeof a === 'number'
          ? ctx.newNumber(a)
          : a
            ? ctx.true
            : ctx.false,
    );
    this.interruption = undefined;
    this.callDeadlineMs = Date.now() + limits.jsCallTimeMaxMs;
    let result;
    try {
      result = ctx.callFunction(fn, ctx.undefined, ...handles);
    } finally {
      for (const h of handles) if (h.alive && h !== ctx.true && h !== ctx.false) h.dispose();
    }
    if (result.error !== undefined) {
      const dumped: unknown = ctx.dump(result.error);
      result.error.dispose();
      this.runtime.executePendingJobs();
      throw this.errorOf(dumped);
    }
    const value = result.value;
    const text = ctx.typeof(value) === 'string' ? ctx.getString(value) : String(ctx.dump(value));
    value.dispose();
    return text;
  }

  private errorOf(dumped: unknown): CommandError {
    switch (this.interruption) {
      case 'killed':
        return new CommandError(ErrorCode.Interrupted, 'operation was interrupted');
      case 'maxTime':
        return new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
      case 'callTime':
        return new CommandError(
          ErrorCode.JSInterpreterFailure,
          `JavaScript execution interrupted: a call ran longer than ${limits.jsCallTimeMaxMs} ms`,
        );
      default:
        break;
    }
    if (dumped !== null && typeof dumped === 'object') {
      const e = dumped as { name?: unknown; message?: unknown; stack?: unknown };
      const name = typeof e.name === 'string' ? e.name : 'Error';
      const message = typeof e.message === 'string' ? e.message : '';
      if (name === 'InternalError' && message === 'out of memory') {
        this.tainted = true;
        orphans.unregister(this.token);
      }
      if (name === 'InternalError' && message === 'out of memory')
        return new CommandError(ErrorCode.JSInterpreterFailure, 'Out of memory');
      const stack = typeof e.stack === 'string' && e.stack !== '' ? ` :\n${e.stack}` : '';
      return new CommandError(ErrorCode.JSInterpreterFailure, `${name}: ${message}${stack}`);
    }
    // A thrown primitive: mongod reports its string form.
    return new CommandError(
      ErrorCode.JSInterpreterFailure,
      typeof dumped === 'string' ? dumped : (JSON.stringify(dumped) ?? String(dumped)),
    );
  }
}
