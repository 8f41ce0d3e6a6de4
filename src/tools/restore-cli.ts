// secantus-restore's command line: mongorestore's flags, parsed into RestoreOptions. `main`
// returns the exit code (0, or 1 on any failure, as mongorestore), so tests can run it in-process.

import { EJSON, Timestamp } from './bson.js';
import type { Document } from './bson.js';
import {
  connectionFrom,
  connectionOptions,
  connectionUsage,
  flag,
  listOption,
  namespaceFilterOptions,
  namespaceFilters,
  namespaceOptions,
  parallelCollections,
  parallelCollectionsOptions,
  reportFailure,
  startTool,
  stringOption,
} from './cli-options.js';
import type { OptionSpec, ParsedArgs, ToolCommandLine } from './cli-options.js';
import { Restore } from './restore.js';
import type { RestoreOptions } from './restore.js';
import { ToolError } from './tool-error.js';
import type { ToolStreams } from './tool-log.js';

const options: OptionSpec = {
  ...connectionOptions,
  ...namespaceOptions,
  ...namespaceFilterOptions,
  ...parallelCollectionsOptions,
  nsFrom: { type: 'string', multiple: true },
  nsTo: { type: 'string', multiple: true },
  dir: { type: 'string' },
  archive: { type: 'string' },
  gzip: { type: 'boolean' },
  drop: { type: 'boolean' },
  dryRun: { type: 'boolean' },
  oplogReplay: { type: 'boolean' },
  oplogLimit: { type: 'string' },
  noIndexRestore: { type: 'boolean' },
  noOptionsRestore: { type: 'boolean' },
  keepIndexVersion: { type: 'boolean' },
  maintainInsertionOrder: { type: 'boolean' },
  stopOnError: { type: 'boolean' },
  bypassDocumentValidation: { type: 'boolean' },
  preserveUUID: { type: 'boolean' },
  writeConcern: { type: 'string' },
};

export const restoreUsage = `usage: secantus-restore <options> [<connection-string>] [<directory or file to restore>]

Restores a dump made by mongodump or secantus-dump (a directory, one .bson file, or an archive)
into a MongoDB-compatible server (SecantusDB or mongod), as mongorestore does.

namespace options:
  -d, --db=<database>              restore this database (the target is its directory), or only it from an archive
  -c, --collection=<collection>    restore one collection (the target is its .bson file, or - for stdin)
      --nsInclude=<pattern>        restore only matching namespaces ("*" matches anything; repeatable)
      --nsExclude=<pattern>        leave out matching namespaces (repeatable)
      --nsFrom=<pattern> --nsTo=<pattern>
                                   rename namespaces (wildcards, or $variables$; repeatable, in pairs)
      --excludeCollection=<name>, --excludeCollectionsWithPrefix=<prefix> (deprecated forms of --nsExclude)

input options:
      --dir=<directory>            the dump directory (or give it as an argument; default: dump)
      --archive[=<file>]           read an archive; without a file, from stdin
      --gzip                       the input is gzip-compressed
      --oplogReplay                replay oplog.bson after restoring (point in time)
      --oplogLimit=<seconds>[:<ordinal>]
                                   replay only entries before this timestamp

restore options:
      --drop                       drop each collection before restoring it
      --dryRun                     plan (and for an archive, read and check it) without writing
      --noIndexRestore             do not create indexes
      --noOptionsRestore           create collections without their options
      --keepIndexVersion           keep the indexes' "v"
      --maintainInsertionOrder     insert in order, stop at the first error
  -j, --numParallelCollections=<n> collections restored at once (default 4)
      --stopOnError                stop at the first duplicate key or validation failure
      --bypassDocumentValidation   insert without checking validators
      --preserveUUID               keep the collections' UUIDs (needs --drop and applyOps)
      --writeConcern=<w or json>   write concern (default majority)

${connectionUsage}`;

/** --oplogLimit: "<seconds>[:<ordinal>]". */
export function parseOplogLimit(text: string): Timestamp {
  const parts = text.split(':');
  if (parts.length > 2)
    throw new ToolError('error parsing timestamp argument to --oplogLimit: too many : characters');
  const [s = '', i = '0'] = parts;
  const t = Number(s);
  const inc = i === '' ? 0 : Number(i);
  if (!/^\d+$/.test(s) || !/^\d*$/.test(i) || t > 0xffffffff || inc > 0xffffffff)
    throw new ToolError(
      `error parsing timestamp argument to --oplogLimit: ${JSON.stringify(text)} is not <seconds>[:<ordinal>]`,
    );
  return new Timestamp({ t, i: inc });
}

function parseWriteConcern(text: string | undefined): Document {
  if (text === undefined) return { w: 'majority' };
  if (text.trimStart().startsWith('{')) {
    try {
      return EJSON.parse(text, { relaxed: true }) as Document;
    } catch (e) {
      throw new ToolError(
        `error parsing write concern: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  return { w: /^\d+$/.test(text) ? Number(text) : text };
}

function optionsFrom(a: ParsedArgs): RestoreOptions {
  const { connection, rest } = connectionFrom(a);
  if (rest.length > 1)
    throw new ToolError(
      'error parsing positional arguments: provide only one directory or file to restore',
    );
  const dir = stringOption(a, 'dir');
  if (dir !== undefined && rest.length > 0)
    throw new ToolError(
      'error parsing positional arguments: cannot use both --dir and a positional argument to set the target directory',
    );
  const archive = stringOption(a, 'archive');
  const limit = stringOption(a, 'oplogLimit');
  return {
    connection,
    db: stringOption(a, 'db'),
    collection: stringOption(a, 'collection'),
    target: dir ?? rest[0],
    archive: archive === '' ? '-' : archive,
    gzip: flag(a, 'gzip'),
    drop: flag(a, 'drop'),
    dryRun: flag(a, 'dryRun'),
    noIndexRestore: flag(a, 'noIndexRestore'),
    noOptionsRestore: flag(a, 'noOptionsRestore'),
    keepIndexVersion: flag(a, 'keepIndexVersion'),
    oplogReplay: flag(a, 'oplogReplay'),
    oplogLimit: limit === undefined ? undefined : parseOplogLimit(limit),
    numParallelCollections: parallelCollections(a),
    ...namespaceFilters(a),
    nsFrom: listOption(a, 'nsFrom'),
    nsTo: listOption(a, 'nsTo'),
    preserveUUID: flag(a, 'preserveUUID'),
    stopOnError: flag(a, 'stopOnError'),
    bypassDocumentValidation: flag(a, 'bypassDocumentValidation'),
    maintainInsertionOrder: flag(a, 'maintainInsertionOrder'),
    writeConcern: parseWriteConcern(stringOption(a, 'writeConcern')),
  };
}

const commandLine: ToolCommandLine<RestoreOptions> = {
  tool: 'secantus-restore',
  usage: restoreUsage,
  options,
  parse: optionsFrom,
  report: reportFailure,
};

export async function restoreMain(argv: readonly string[], io: ToolStreams): Promise<number> {
  const start = await startTool(commandLine, argv, io);
  if ('exitCode' in start) return start.exitCode;
  const { options: o, log } = start;
  let code = 0;
  let restore: Restore | undefined;
  try {
    restore = new Restore(o, log, io);
    await restore.run();
  } catch (e) {
    code = reportFailure(log, e, commandLine.tool);
  }
  // As mongorestore, the counts close every run that got past its options, failed or not.
  const counts = restore?.counts ?? { successes: 0, failures: 0 };
  log.always(
    `${counts.successes} document(s) restored successfully. ${counts.failures} document(s) failed to restore.`,
  );
  return code;
}
