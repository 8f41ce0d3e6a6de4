// getParameter, setParameter and getCmdLineOpts: the server parameters mongod's shells and
// drivers read and set, typed and checked as mongod's IDL does, some of them live (the
// logger's verbosity) and some read by commands when they start (memory limits, disk use).

import { Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import { t } from '../args.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { ReportedVersion } from '../version.js';
import { componentVerbosity, parseLogLevel, setComponentVerbosity } from './log-commands.js';
import { onCluster } from '../authorization.js';

const int = (n: number): Int32 => new Int32(n);

/**
 * Typed parameters of the memory limits and disk use of blocking stages (mongod's
 * query_knobs.idl): each normalises a value given to setParameter or refuses it with BadValue.
 * Commands read them when they start (src/commands/crud/disk-use.ts).
 */
const memoryParameters = new Map<string, (name: string, v: unknown) => BsonValue>([
  [
    'internalQueryMaxBlockingSortMemoryUsageBytes',
    (name, v) => int(byteCount(name, v, 2 ** 31 - 1)),
  ],
  [
    'internalDocumentSourceGroupMaxMemoryBytes',
    (name, v) => Long.fromNumber(byteCount(name, v, Number.MAX_SAFE_INTEGER, 1)),
  ],
  ...[
    'internalDocumentSourceBucketAutoMaxMemoryBytes',
    'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
    'internalDocumentSourceGraphLookupMaxMemoryBytes',
  ].map((p): [string, (name: string, v: unknown) => BsonValue] => [
    p,
    (name, v) => Long.fromNumber(byteCount(name, v, Number.MAX_SAFE_INTEGER, 1)),
  ]),
  [
    'allowDiskUseByDefault',
    (name, v) => {
      if (typeof v !== 'boolean')
        throw new CommandError(
          ErrorCode.BadValue,
          `Invalid value for parameter ${name}: expected a boolean`,
        );
      return v;
    },
  ],
]);

function byteCount(name: string, v: unknown, max: number, min = 0): number {
  const n = numericValue(v as BsonValue);
  if (n === undefined || !Number.isInteger(n))
    throw new CommandError(
      ErrorCode.BadValue,
      `Invalid value for parameter ${name}: expected an integer`,
    );
  if (n < min || n > max)
    throw new CommandError(
      ErrorCode.BadValue,
      `Invalid value for parameter ${name}: ${n} is out of range [${min}, ${max}]`,
    );
  return n;
}

/** Server parameters reported by getParameter and changed by setParameter. */
export function defaultParameters(services: {
  enableTestCommands: boolean;
  reported: ReportedVersion;
}): Map<string, unknown> {
  return new Map<string, unknown>([
    ['enableTestCommands', services.enableTestCommands],
    // mongod's test-only parameter: API Version 2 for the API test commands.
    ...(services.enableTestCommands ? [['acceptApiVersion2', false] as const] : []),
    ['featureCompatibilityVersion', { version: services.reported.featureCompatibilityVersion }],
    ['ttlMonitorSleepSecs', int(60)],
    ['ttlMonitorEnabled', true],
    ['transactionLifetimeLimitSeconds', int(60)],
    ['maxTransactionLockRequestTimeoutMillis', int(5)],
    ['cursorTimeoutMillis', Long.fromNumber(limits.cursorIdleTimeoutMs)],
    ['logicalSessionRefreshMillis', int(300000)],
    ['localLogicalSessionTimeoutMinutes', int(limits.logicalSessionTimeoutMinutes)],
    ['internalQueryMaxBlockingSortMemoryUsageBytes', int(limits.sortMemoryBytesMax)],
    ['internalDocumentSourceGroupMaxMemoryBytes', Long.fromNumber(limits.groupMemoryBytesMax)],
    [
      'internalDocumentSourceBucketAutoMaxMemoryBytes',
      Long.fromNumber(limits.bucketAutoMemoryBytesMax),
    ],
    [
      'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
      Long.fromNumber(limits.setWindowFieldsMemoryBytesMax),
    ],
    [
      'internalDocumentSourceGraphLookupMaxMemoryBytes',
      Long.fromNumber(limits.graphLookupMemoryBytesMax),
    ],
    ['allowDiskUseByDefault', true],
    ['authenticationMechanisms', ['SCRAM-SHA-1', 'SCRAM-SHA-256']],
    ['enableLocalhostAuthBypass', true],
    ['scramIterationCount', int(10000)],
    ['scramSHA256IterationCount', int(15000)],
    ['requireApiVersion', false],
    ['notablescan', false],
    ['quiet', false],
    ['logLevel', int(0)],
    ['logComponentVerbosity', {}],
  ]);
}

/** Parameters whose value lives elsewhere (the logger's settings): read and written there. */
const liveParameters = new Map<
  string,
  {
    get(services: ServerServices): BsonValue;
    set(services: ServerServices, value: BsonValue): void;
  }
>([
  [
    'logLevel',
    {
      get: (s) => int(s.logger.settings.logLevel),
      set: (s, v) => (s.logger.settings.logLevel = parseLogLevel(v)),
    },
  ],
  [
    'logComponentVerbosity',
    {
      get: (s) => componentVerbosity(s.logger.settings),
      set: (s, v) => setComponentVerbosity(s.logger.settings, v),
    },
  ],
  [
    'quiet',
    {
      get: (s) => s.logger.settings.quiet,
      set: (s, v) => {
        if (typeof v !== 'boolean')
          throw new CommandError(
            ErrorCode.BadValue,
            'Invalid value for parameter quiet: expected a boolean',
          );
        s.logger.settings.quiet = v;
      },
    },
  ],
]);

function parameterValue(services: ServerServices, key: string): BsonValue {
  const live = liveParameters.get(key);
  return live !== undefined ? live.get(services) : (services.parameters.get(key) as BsonValue);
}

const settable = new Set([
  'acceptApiVersion2',
  'ttlMonitorSleepSecs',
  'ttlMonitorEnabled',
  'transactionLifetimeLimitSeconds',
  'cursorTimeoutMillis',
  'notablescan',
  'logLevel',
  'logComponentVerbosity',
  'quiet',
  'maxTransactionLockRequestTimeoutMillis',
  ...memoryParameters.keys(),
]);

export const getParameter = defineCommand({
  name: 'getParameter',
  auth: onCluster('getParameter'),
  args: { allParameters: t.any, showDetails: t.any, setAt: t.any },
  strict: false,
  traits: { adminOnly: true },
  run: ({ services, target, body }) => {
    const params = services.parameters;
    const all = target === '*' || (isPlainDocument(target) && target['allParameters'] === true);
    const reply: BsonDocument = {};
    if (all) {
      for (const k of params.keys()) reply[k] = parameterValue(services, k);
      return reply;
    }
    for (const key of Object.keys(body)) {
      if (key === 'getParameter' || key.startsWith('$') || key === 'comment') continue;
      if (params.has(key)) reply[key] = parameterValue(services, key);
    }
    if (Object.keys(reply).length === 0)
      throw new CommandError(ErrorCode.InvalidOptions, 'no option found to get');
    return reply;
  },
});

export const setParameter = defineCommand({
  name: 'setParameter',
  auth: onCluster('setParameter'),
  args: Object.fromEntries([...settable].map((k) => [k, t.any])),
  traits: { adminOnly: true },
  run: ({ services, body }) => {
    const reply: BsonDocument = {};
    let n = 0;
    for (const [key, value] of Object.entries(body)) {
      if (
        key === 'setParameter' ||
        key.startsWith('$') ||
        key === 'comment' ||
        key === 'lsid' ||
        key === '$clusterTime'
      )
        continue;
      // Test-only parameters exist only under enableTestCommands.
      if (!settable.has(key) || !(services.parameters.has(key) || liveParameters.has(key)))
        continue;
      reply['was'] = parameterValue(services, key);
      const live = liveParameters.get(key);
      if (live !== undefined) live.set(services, value);
      else services.parameters.set(key, memoryParameters.get(key)?.(key, value) ?? value);
      n++;
    }
    if (n === 0)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'no option found to set, use help:true to see options',
      );
    return reply;
  },
});

export const getCmdLineOpts = defineCommand({
  name: 'getCmdLineOpts',
  auth: onCluster('getCmdLineOpts'),
  args: {},
  traits: { adminOnly: true },
  run: ({ services }) => ({ argv: [...services.config.argv], parsed: services.config.parsed }),
});
