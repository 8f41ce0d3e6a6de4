// secantus-dump's command line: mongodump's flags, parsed into DumpOptions. `main` returns the
// exit code (0, or 1 on any failure, as mongodump), so tests can run it in-process.

import { readFile } from 'node:fs/promises';
import {
  connectionFrom,
  connectionOptions,
  connectionUsage,
  flag,
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
import { parseQuery, runDump } from './dump.js';
import type { DumpOptions } from './dump.js';
import { ToolError } from './tool-error.js';
import type { ToolStreams } from './tool-log.js';

const options: OptionSpec = {
  ...connectionOptions,
  ...namespaceOptions,
  ...namespaceFilterOptions,
  ...parallelCollectionsOptions,
  query: { type: 'string', short: 'q' },
  queryFile: { type: 'string' },
  out: { type: 'string', short: 'o' },
  archive: { type: 'string' },
  gzip: { type: 'boolean' },
  oplog: { type: 'boolean' },
};

export const dumpUsage = `usage: secantus-dump <options> [<connection-string>]

Writes the contents of a MongoDB-compatible server (SecantusDB or mongod) as mongodump does:
a directory of .bson and .metadata.json files, or an archive. mongorestore reads both.

namespace options:
  -d, --db=<database>              database to dump
  -c, --collection=<collection>    collection to dump (with --db)
      --nsInclude=<pattern>        dump only matching namespaces (wildcards as mongorestore's; repeatable)
      --nsExclude=<pattern>        leave out matching namespaces (repeatable)
      --excludeCollection=<name>   leave out a collection of --db (repeatable)
      --excludeCollectionsWithPrefix=<prefix>

query options:
  -q, --query=<json>               filter, as Extended JSON (needs --collection)
      --queryFile=<path>           file holding the filter

output options:
  -o, --out=<directory>            output directory (default: dump), or - for one collection's BSON on stdout
      --archive[=<file>]           write an archive; without a file, to stdout
      --gzip                       compress the archive, or each file of a directory dump
      --oplog                      include the oplog for a point-in-time dump (replica set, full dumps)
  -j, --numParallelCollections=<n> collections dumped at once (default 4)

${connectionUsage}`;

async function optionsFrom(a: ParsedArgs): Promise<DumpOptions> {
  const { connection, rest } = connectionFrom(a);
  if (rest.length > 0)
    throw new ToolError(
      'error parsing positional arguments: provide only one MongoDB connection string. ' +
        'Connection strings must begin with mongodb:// or mongodb+srv:// schemes',
    );
  const queryText = stringOption(a, 'query');
  const queryFile = stringOption(a, 'queryFile');
  if (queryText !== undefined && queryFile !== undefined)
    throw new ToolError(
      'bad option: either query or queryFile can be specified as a query option, not both',
    );
  let query;
  if (queryText !== undefined) query = parseQuery(queryText);
  else if (queryFile !== undefined) {
    const text = await readFile(queryFile, 'utf8').catch((e: unknown) => {
      throw new ToolError(`error reading queryFile: ${e instanceof Error ? e.message : String(e)}`);
    });
    query = parseQuery(text);
  }
  const archive = stringOption(a, 'archive');
  return {
    connection,
    db: stringOption(a, 'db'),
    collection: stringOption(a, 'collection'),
    query,
    out: stringOption(a, 'out'),
    archive: archive === '' ? '-' : archive,
    gzip: flag(a, 'gzip'),
    oplog: flag(a, 'oplog'),
    numParallelCollections: parallelCollections(a),
    ...namespaceFilters(a),
  };
}

const commandLine: ToolCommandLine<DumpOptions> = {
  tool: 'secantus-dump',
  usage: dumpUsage,
  options,
  parse: optionsFrom,
  report: reportFailure,
};

export async function dumpMain(argv: readonly string[], io: ToolStreams): Promise<number> {
  const start = await startTool(commandLine, argv, io);
  if ('exitCode' in start) return start.exitCode;
  try {
    await runDump(start.options, start.log, io);
    return 0;
  } catch (e) {
    return reportFailure(start.log, e, commandLine.tool);
  }
}
