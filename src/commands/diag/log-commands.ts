// The log as commands see it: getLog (the recent lines kept in memory, the startup warnings),
// logRotate, and the log parameters of getParameter / setParameter (logLevel,
// logComponentVerbosity, quiet), which change what is written at once.

import { Double, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import { formatValue } from '../../bson/format.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { logComponentTree } from '../../log.js';
import type { LogSettings } from '../../log.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { onCluster } from '../authorization.js';

/** An errmsg-only failure, as mongod's ErrmsgCommandDeprecated replies (no code). */
export function errmsgReply(errmsg: string): BsonDocument {
  return { ok: new Double(0), errmsg };
}

export const getLog = defineCommand({
  name: 'getLog',
  auth: onCluster('getLog'),
  args: {},
  traits: { adminOnly: true },
  help: '{ getLog : "*" }  OR { getLog : "global" }',
  run: ({ services, target }) => {
    if (typeof target !== 'string')
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `Argument to getLog must be of type String; found ${formatValue(target)} of type ${bsonTypeName(target)}`,
      );
    if (target === '*') return { names: ['global', 'startupWarnings'] };
    const state = services.logger.state;
    const ram =
      target === 'global'
        ? state.global
        : target === 'startupWarnings'
          ? state.startupWarnings
          : undefined;
    if (ram === undefined) return errmsgReply(`no RamLog named: ${target}`);
    return { totalLinesWritten: new Int32(ram.totalLinesWritten), log: ram.get() };
  },
});

export const logRotate = defineCommand({
  name: 'logRotate',
  auth: onCluster('logRotate'),
  args: {},
  traits: { adminOnly: true },
  help: 'renames the server log file to <logpath>.<time> and opens a new one (as SIGUSR1 does)',
  run: ({ services, target }) => {
    if (typeof target === 'string' && target !== 'server' && target !== 'audit')
      throw new CommandError(ErrorCode.NoSuchKey, `Unknown log type for rotate: ${target}`);
    if (typeof target !== 'string' && numericValue(target) === undefined)
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'logRotate' is the wrong type '${bsonTypeName(target)}', expected types '[string, long, int, decimal, double]'`,
      );
    if (target === 'audit') return {};
    rotateServerLog(services);
    return {};
  },
});

/** logRotate and SIGUSR1: logs the rotation, then renames the file (when there is one). */
export function rotateServerLog(services: Pick<ServerServices, 'logger' | 'rotateLog'>): void {
  const suffix = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
  services.logger.info('CONTROL', 23166, 'Log rotation initiated', { suffix, logType: 'server' });
  const renamed = services.rotateLog();
  if (renamed !== undefined)
    services.logger.info('CONTROL', 23167, 'Log rotation complete', { renamedTo: renamed });
}

// ---- parameters ----------------------------------------------------------------------------

function verbosityOf(v: BsonValue | undefined, path: string): number {
  const n = numericValue(v);
  if (n === undefined || !Number.isInteger(n))
    throw new CommandError(
      ErrorCode.BadValue,
      `Expected ${path}.verbosity field to be an integer but found ${formatValue(v ?? null)}`,
    );
  return n;
}

/** setParameter logComponentVerbosity: {verbosity: n, storage: {verbosity: n, journal: n}, ...}. */
export function setComponentVerbosity(settings: LogSettings, value: BsonValue): void {
  if (!isPlainDocument(value))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `Expected object for logComponentVerbosity, found ${bsonTypeName(value)}`,
    );
  const changes: Array<[string | undefined, number]> = [];
  const walk = (doc: BsonDocument, path: string | undefined, children: readonly string[]): void => {
    for (const [k, v] of Object.entries(doc)) {
      if (k === 'verbosity') {
        changes.push([path, verbosityOf(v, path ?? 'logComponentVerbosity')]);
        continue;
      }
      const known = path === undefined ? Object.hasOwn(logComponentTree, k) : children.includes(k);
      if (!known)
        throw new CommandError(
          ErrorCode.BadValue,
          `Invalid component name ${path === undefined ? k : `${path}.${k}`}`,
        );
      const childPath = path === undefined ? k : `${path}.${k}`;
      if (isPlainDocument(v)) walk(v, childPath, logComponentTree[k] ?? []);
      else changes.push([childPath, verbosityOf(v, childPath)]);
    }
  };
  walk(value, undefined, []);
  // Everything was checked first: a bad field changes nothing.
  for (const [path, level] of changes) {
    if (path === undefined) settings.logLevel = Math.max(0, level);
    else settings.setComponentLevel(path, level);
  }
}

/** getParameter logComponentVerbosity: every component with its level, -1 when it inherits. */
export function componentVerbosity(settings: LogSettings): BsonDocument {
  const out: BsonDocument = { verbosity: new Int32(settings.logLevel) };
  for (const [name, children] of Object.entries(logComponentTree)) {
    const node: BsonDocument = { verbosity: new Int32(settings.componentLevel(name)) };
    for (const c of children)
      node[c] = { verbosity: new Int32(settings.componentLevel(`${name}.${c}`)) };
    out[name] = node;
  }
  return out;
}

/** setParameter logLevel: a whole number >= 0. */
export function parseLogLevel(value: BsonValue): number {
  const n = numericValue(value);
  if (n === undefined || !Number.isInteger(n) || n < 0)
    throw new CommandError(ErrorCode.BadValue, `Invalid value for logLevel: ${formatValue(value)}`);
  return n;
}

export const logCommands: CommandDefinition[] = [getLog, logRotate];
