// secantus-export's command line: mongoexport's flags (and --type=parquet), parsed into
// ExportOptions. `exportMain` returns the exit code (0, or 1 on any failure, as mongoexport).

import { readFile } from 'node:fs/promises';
import {
  connectionFrom,
  connectionOptions,
  connectionUsage,
  flag,
  namespaceOptions,
  startTool,
  stringOption,
} from './cli-options.js';
import type { OptionSpec, ParsedArgs, ToolCommandLine } from './cli-options.js';
import type { Document } from './bson.js';
import { parseExtendedJson } from './ejson-text.js';
import { runExport } from './export.js';
import type { ExportOptions, ExportType } from './export.js';
import { fieldsFromFile, reportToolFailure, SetupError, shortUsage } from './io-common.js';
import type { ToolLog } from './tool-log.js';
import type { ToolStreams } from './tool-log.js';

const tool = 'secantus-export';

const options: OptionSpec = {
  ...connectionOptions,
  ...namespaceOptions,
  fields: { type: 'string', short: 'f' },
  fieldFile: { type: 'string' },
  type: { type: 'string' },
  csv: { type: 'boolean' },
  out: { type: 'string', short: 'o' },
  jsonArray: { type: 'boolean' },
  pretty: { type: 'boolean' },
  noHeaderLine: { type: 'boolean' },
  jsonFormat: { type: 'string' },
  query: { type: 'string', short: 'q' },
  queryFile: { type: 'string' },
  skip: { type: 'string' },
  limit: { type: 'string' },
  sort: { type: 'string' },
  pipeline: { type: 'string' },
  pipelineFile: { type: 'string' },
  assertExists: { type: 'boolean' },
  parquetSampleSize: { type: 'string' },
};

export const exportUsage = `usage: ${tool} <options> [<connection-string>]

Exports one collection of a MongoDB-compatible server (SecantusDB or mongod) as mongoexport
does, in JSON (Extended JSON) or CSV, or as a Parquet file.

namespace options:
  -d, --db=<database>              database to use (default: test)
  -c, --collection=<collection>    collection to export

output options:
  -f, --fields=<field>[,<field>]*  fields to export (required for CSV), e.g. -f "name,age"
      --fieldFile=<filename>       file with field names, one a line
      --type=<type>                json (default), csv or parquet
  -o, --out=<filename>             output file (default: standard output)
      --jsonArray                  write one JSON array rather than one document a line
      --pretty                     indent the JSON
      --noHeaderLine               CSV without the line of field names
      --jsonFormat=<format>        relaxed (default) or canonical Extended JSON
      --parquetSampleSize=<n>      documents the Parquet schema is inferred from (default 0: all)

querying options:
  -q, --query=<json>               filter, as Extended JSON, e.g. '{"x": {"$gt": 1}}'
      --queryFile=<filename>       file holding the filter
      --skip=<count>               documents to skip
      --limit=<count>              documents to export at most
      --sort=<json>                sort order, e.g. '{"x": 1}'
      --pipeline=<json>            export what this aggregation pipeline returns, e.g.
                                   '[{"$match": {"x": 1}}, {"$group": {"_id": "$k"}}]'
                                   (not with --query, --sort or --skip; no $out or $merge)
      --pipelineFile=<filename>    file holding the pipeline
      --assertExists               fail if the collection does not exist

${connectionUsage}`;

function count(text: string | undefined, name: string): number {
  if (text === undefined) return 0;
  if (!/^-?\d+$/.test(text))
    throw new SetupError(
      `error parsing command line options: invalid argument for flag \`--${name}' (expected int64): ` +
        `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`,
      shortUsage(tool),
    );
  return Math.max(0, Number(text));
}

/** The text of the file a flag names; a read error names the flag. */
function readFlagFile(path: string, flagName: string): Promise<string> {
  return readFile(path, 'utf8').catch((e: unknown) => {
    throw new SetupError(
      `error reading ${flagName}: ${e instanceof Error ? e.message : String(e)}`,
      shortUsage(tool),
    );
  });
}

/** Extended JSON given to flag `what`, parsed; a parse error names the flag. */
function parseFlagJson(text: string, what: string): unknown {
  try {
    return parseExtendedJson(text);
  } catch (e) {
    throw new SetupError(
      `${what} '${text}' is not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
      shortUsage(tool),
    );
  }
}

/** A plain JSON object: not an array, null or a wrapped BSON value. */
function isJsonObject(v: unknown): v is Document {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !('_bsontype' in v);
}

function jsonObject(text: string, what: string): Document {
  const v = parseFlagJson(text, what);
  if (!isJsonObject(v))
    throw new SetupError(
      `${what} '${text}' is not valid JSON: not a JSON object`,
      shortUsage(tool),
    );
  return v;
}

/** --pipeline: an array of stage documents; $out and $merge are refused (an export writes nothing). */
function pipelineArray(text: string): Document[] {
  const v = parseFlagJson(text, 'pipeline');
  if (!Array.isArray(v))
    throw new SetupError(`pipeline '${text}' is not a JSON array of stages`, shortUsage(tool));
  return v.map((stage: unknown, i) => {
    if (!isJsonObject(stage))
      throw new SetupError(`pipeline stage ${i} is not a JSON object`, shortUsage(tool));
    const name = Object.keys(stage)[0];
    if (name === '$out' || name === '$merge')
      throw new SetupError(
        `pipeline stage ${i} is ${name}: an export writes nothing to the server`,
        shortUsage(tool),
      );
    return stage;
  });
}

async function optionsFrom(a: ParsedArgs, log: ToolLog): Promise<ExportOptions> {
  const { connection, rest } = connectionFrom(a);
  if (rest.length > 0)
    throw new SetupError(
      'error parsing positional arguments: provide only one MongoDB connection string. ' +
        'Connection strings must begin with mongodb:// or mongodb+srv:// schemes',
      shortUsage(tool),
    );
  const setup = (m: string): SetupError => new SetupError(m, shortUsage(tool));
  const db = stringOption(a, 'db') ?? 'test';
  if (db === '' || /[/\\. "$]/.test(db))
    throw setup(`invalid database name: ${JSON.stringify(db)}`);
  const collection = stringOption(a, 'collection');
  if (collection === undefined || collection === '') throw setup('must specify a collection');
  if (
    collection.startsWith('system.') &&
    collection !== 'system.profile' &&
    collection !== 'system.js'
  )
    throw setup(`cannot export the system collection ${collection}`);
  let type = (stringOption(a, 'type') ?? 'json').toLowerCase();
  if (flag(a, 'csv')) {
    log.always('csv flag is deprecated; please use --type=csv instead');
    type = 'csv';
  }
  if (type === '') throw setup('--type cannot be empty');
  if (type !== 'json' && type !== 'csv' && type !== 'parquet')
    throw setup(`invalid output type '${type}', choose 'json', 'csv' or 'parquet'`);
  const jsonFormat = stringOption(a, 'jsonFormat') ?? 'relaxed';
  if (jsonFormat !== 'relaxed' && jsonFormat !== 'canonical')
    throw setup(`invalid JSON format '${jsonFormat}', choose 'relaxed' or 'canonical'`);
  const queryText = stringOption(a, 'query');
  const queryFile = stringOption(a, 'queryFile');
  if (queryText !== undefined && queryFile !== undefined)
    throw setup('either --query or --queryFile can be specified as a query option');
  let query: Document | undefined;
  if (queryText !== undefined) query = jsonObject(queryText, 'query');
  else if (queryFile !== undefined)
    query = jsonObject(await readFlagFile(queryFile, 'queryFile'), 'query');
  const pipelineText = stringOption(a, 'pipeline');
  const pipelineFile = stringOption(a, 'pipelineFile');
  if (pipelineText !== undefined && pipelineFile !== undefined)
    throw setup('either --pipeline or --pipelineFile can be specified');
  let pipeline: Document[] | undefined;
  if (pipelineText !== undefined) pipeline = pipelineArray(pipelineText);
  else if (pipelineFile !== undefined)
    pipeline = pipelineArray(await readFlagFile(pipelineFile, 'pipelineFile'));
  if (pipeline !== undefined)
    for (const other of ['query', 'queryFile', 'sort', 'skip'])
      if (stringOption(a, other) !== undefined)
        throw setup(`--${other} cannot be used with --pipeline: put it in the pipeline`);
  const sortText = stringOption(a, 'sort');
  const sort = sortText === undefined ? undefined : jsonObject(sortText, 'query');
  const fieldsText = stringOption(a, 'fields');
  const fieldFile = stringOption(a, 'fieldFile');
  let fields: string[] | undefined;
  if (fieldsText !== undefined) fields = fieldsText.split(',');
  else if (fieldFile !== undefined) fields = await fieldsFromFile(fieldFile);
  if (type === 'csv' && (fields === undefined || fields.length === 0))
    throw new SetupError('Failed: CSV mode requires a field list');
  if (type === 'parquet' && flag(a, 'jsonArray'))
    throw setup('--jsonArray applies to --type=json only');
  const sampleText = stringOption(a, 'parquetSampleSize');
  if (sampleText !== undefined && !/^\d+$/.test(sampleText))
    throw setup(`--parquetSampleSize must be a whole number, not ${JSON.stringify(sampleText)}`);
  if (sampleText !== undefined && type !== 'parquet')
    throw setup('--parquetSampleSize applies to --type=parquet only');
  return {
    connection,
    db,
    collection,
    query,
    ...(pipeline === undefined ? {} : { pipeline }),
    sort,
    skip: count(stringOption(a, 'skip'), 'skip'),
    limit: count(stringOption(a, 'limit'), 'limit'),
    fields,
    type: type as ExportType,
    jsonArray: flag(a, 'jsonArray'),
    pretty: flag(a, 'pretty'),
    jsonFormat,
    noHeaderLine: flag(a, 'noHeaderLine'),
    out: stringOption(a, 'out'),
    assertExists: flag(a, 'assertExists'),
    parquetSampleSize: sampleText === undefined ? 0 : Number(sampleText),
  };
}

const commandLine: ToolCommandLine<ExportOptions> = {
  tool,
  usage: exportUsage,
  options,
  parse: optionsFrom,
  report: reportToolFailure,
};

export async function exportMain(argv: readonly string[], io: ToolStreams): Promise<number> {
  const start = await startTool(commandLine, argv, io);
  if ('exitCode' in start) return start.exitCode;
  try {
    await runExport(start.options, start.log, io);
    return 0;
  } catch (e) {
    return reportToolFailure(start.log, e, tool);
  }
}
