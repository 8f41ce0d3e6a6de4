// profile: the database profiler's level (0 off, 1 slow operations, 2 all), the slow-operation
// threshold (slowms), the sampled fraction (sampleRate) and a filter that replaces both
// (commands/profiler.ts). A level outside 0..2 (mongosh's getProfilingStatus sends -1) only
// reads the settings. As mongod's IDL: the level is any number, slowms a whole number,
// sampleRate a double in [0, 1], filter a document or "unset"; other fields are ignored.

import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { parseCommandParameter, t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { privileges } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import { databaseResource, namespaceResource } from '../../auth/resource.js';
import { Profiler, parseProfileFilter } from '../profiler.js';
import type { DatabaseProfileSettings, ProfileFilter } from '../profiler.js';

const filterNote =
  'When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines.';

function parseFilter(v: unknown): ProfileFilter | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'unset') return null;
  if (isPlainDocument(v)) return parseProfileFilter(v);
  throw new CommandError(ErrorCode.BadValue, "Expected an object, or the string 'unset'.");
}

function state(
  s: DatabaseProfileSettings,
  slowms: number,
  sampleRate: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = { level: s.level, slowms, sampleRate };
  if (s.filter !== undefined) out['filter'] = s.filter.spec;
  return out;
}

export const profile = defineCommand({
  name: 'profile',
  // As mongod: reading the settings needs find on system.profile or enableProfiler; changing
  // them needs enableProfiler on the database.
  auth: privileges('enableProfiler on the database', ({ db, target, args }) => {
    const level = numericValue(target) ?? 0;
    const change = [privilege(databaseResource(db), 'enableProfiler')];
    if (level < 0 && args.slowms === undefined && args.sampleRate === undefined)
      return [[privilege(namespaceResource(db, 'system.profile'), 'find')], change];
    return [change];
  }),
  args: { slowms: t.int64, sampleRate: t.double, filter: t.any },
  strict: false,
  help: 'controls the behaviour of the performance profiler, the fraction of eligible operations which are sampled for logging/profiling, and the threshold duration at which ops become eligible.',
  run: ({ services, db, target, args }) => {
    const level = parseCommandParameter('profile', target, t.int64);
    if (args.sampleRate !== undefined && !(args.sampleRate >= 0 && args.sampleRate <= 1))
      throw new CommandError(
        ErrorCode.BadValue,
        "'sampleRate' must be between 0.0 and 1.0 inclusive",
      );
    const filter = parseFilter(args.filter);
    const { profiler, logger } = services;
    const slowBefore = profiler.slowMs;
    const rateBefore = profiler.sampleRate;
    const changing = (level >= 0 && level <= 2) || filter !== undefined;
    const before = changing
      ? profiler.apply(db, {
          ...(level >= 0 && level <= 2 ? { level } : {}),
          ...(filter === undefined ? {} : { filter }),
        })
      : profiler.settingsOf(db);
    const reply = Profiler.describe(before, slowBefore, rateBefore);
    if (before.filter !== undefined || (filter !== undefined && filter !== null))
      reply['note'] = filterNote;
    if (args.slowms !== undefined) profiler.slowMs = args.slowms;
    if (args.sampleRate !== undefined) profiler.sampleRate = args.sampleRate;
    if (
      level !== -1 ||
      args.slowms !== undefined ||
      args.sampleRate !== undefined ||
      filter !== undefined
    ) {
      logger.info('COMMAND', 48742, 'Profiler settings changed', {
        from: state(before, slowBefore, rateBefore),
        to: state(profiler.settingsOf(db), profiler.slowMs, profiler.sampleRate),
      });
    }
    return reply;
  },
});

export const profileCommands: CommandDefinition[] = [profile];
