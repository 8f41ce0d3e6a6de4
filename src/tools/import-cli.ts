// secantus-import's command line: mongoimport's flags (and --type=parquet), parsed and checked
// as mongoimport checks them ("error validating settings: ..."). `importMain` returns the exit
// code (0, or 1 on any failure, as mongoimport) and prints mongoimport's summary line.

import { limits } from '../limits.js';
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
import { collectionFromFile, Import } from './import.js';
import type { ImportCounts, ImportMode, ImportOptions, ImportType } from './import.js';
import {
  fieldsFromFile,
  reportToolFailure,
  SetupError,
  shortUsage,
  validateFields,
} from './io-common.js';
import type { ToolLog } from './tool-log.js';
import type { ToolStreams } from './tool-log.js';

const tool = 'secantus-import';

const options: OptionSpec = {
  ...connectionOptions,
  ...namespaceOptions,
  fields: { type: 'string', short: 'f' },
  fieldFile: { type: 'string' },
  file: { type: 'string' },
  headerline: { type: 'boolean' },
  jsonArray: { type: 'boolean' },
  type: { type: 'string' },
  ignoreBlanks: { type: 'boolean' },
  drop: { type: 'boolean' },
  maintainInsertionOrder: { type: 'boolean' },
  numInsertionWorkers: { type: 'string', short: 'j' },
  stopOnError: { type: 'boolean' },
  mode: { type: 'string' },
  upsert: { type: 'boolean' },
  upsertFields: { type: 'string' },
  writeConcern: { type: 'string' },
  bypassDocumentValidation: { type: 'boolean' },
};

export const importUsage = `usage: ${tool} <options> [<connection-string>] [<file>]

Imports JSON (Extended JSON), CSV, TSV or Parquet into one collection of a MongoDB-compatible
server (SecantusDB or mongod), as mongoimport does. Without a file, reads standard input.

namespace options:
  -d, --db=<database>              database to use (default: test)
  -c, --collection=<collection>    collection to use (default: the file's name without its extension)

input options:
  -f, --fields=<field>[,<field>]*  CSV/TSV field names, e.g. -f name,age
      --fieldFile=<filename>       file with field names, one a line
      --file=<filename>            file to import from (or give it as an argument)
      --headerline                 the first CSV/TSV line holds the field names
      --jsonArray                  the input is one JSON array of documents
      --type=<type>                json (default), csv, tsv or parquet

ingest options:
      --drop                       drop the collection first
      --ignoreBlanks               leave out empty CSV/TSV values
      --maintainInsertionOrder     write in input order, stopping at the first error
  -j, --numInsertionWorkers=<n>    write batches at once (default 1)
      --stopOnError                stop at the first write error (duplicate keys included)
      --mode=<mode>                insert (default), upsert (replace), merge ($set) or delete
      --upsertFields=<field>[,<field>]*  fields that find the document (default _id)
      --writeConcern=<concern>     e.g. majority, or '{"w": 1, "j": true}'
      --bypassDocumentValidation   write documents that fail the collection's validator

${connectionUsage}`;

function validating(message: string): SetupError {
  return new SetupError(`error validating settings: ${message}`);
}

function writeConcernFrom(text: string | undefined): ImportOptions['writeConcern'] {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return { w: Number(text) };
  if (!text.trimStart().startsWith('{')) return { w: text as 'majority' };
  let v: unknown;
  try {
    v = parseExtendedJson(text);
  } catch (e) {
    throw new SetupError(
      `error parsing command line options: error constructing write concern: ${e instanceof Error ? e.message : String(e)}`,
      shortUsage(tool),
    );
  }
  const d = v as Document;
  const wc: Record<string, unknown> = {};
  if (d['w'] !== undefined) wc['w'] = typeof d['w'] === 'object' ? Number(d['w']) : d['w'];
  if (d['j'] !== undefined) wc['journal'] = Boolean(d['j']);
  if (d['wtimeout'] !== undefined) wc['wtimeoutMS'] = Number(d['wtimeout']);
  return wc as ImportOptions['writeConcern'];
}

async function optionsFrom(a: ParsedArgs, log: ToolLog): Promise<ImportOptions> {
  const { connection, rest } = connectionFrom(a);
  if (rest.length > 1)
    throw new SetupError(
      'error parsing command line options: error parsing positional arguments: provide only one file name ' +
        'and only one MongoDB connection string. Connection strings must begin with mongodb:// or mongodb+srv:// schemes',
      shortUsage(tool),
    );
  let file = stringOption(a, 'file');
  if (file !== undefined && rest.length > 0)
    throw new SetupError(
      'error parsing command line options: error parsing positional arguments: cannot use both --file and a positional argument to set the input file',
      shortUsage(tool),
    );
  file ??= rest[0];
  const db = stringOption(a, 'db') ?? 'test';
  if (db === '' || /[/\\. "$]/.test(db))
    throw validating(`invalid database name: ${JSON.stringify(db)}`);
  const type = (stringOption(a, 'type') ?? 'json').toLowerCase() || 'json';
  if (type !== 'json' && type !== 'csv' && type !== 'tsv' && type !== 'parquet')
    throw validating(`unknown type ${type}`);
  const fieldsText = stringOption(a, 'fields');
  const fieldFile = stringOption(a, 'fieldFile');
  const headerline = flag(a, 'headerline');
  if (type === 'csv' || type === 'tsv') {
    if (!headerline) {
      if (fieldsText === undefined && fieldFile === undefined)
        throw validating(
          'must specify --fields, --fieldFile or --headerline to import this file type',
        );
      if (fieldFile === '') throw validating('--fieldFile cannot be empty string');
      if (fieldsText !== undefined && fieldFile !== undefined)
        throw validating('incompatible options: --fields and --fieldFile');
    } else {
      if (fieldsText !== undefined)
        throw validating('incompatible options: --fields and --headerline');
      if (fieldFile !== undefined)
        throw validating('incompatible options: --fieldFile and --headerline');
    }
  } else {
    const kind = type === 'json' ? 'JSON' : 'Parquet';
    if (headerline) throw validating(`cannot use --headerline when input type is ${kind}`);
    if (fieldsText !== undefined)
      throw validating(`cannot use --fields when input type is ${kind}`);
    if (fieldFile !== undefined)
      throw validating(`cannot use --fieldFile when input type is ${kind}`);
    if (flag(a, 'ignoreBlanks'))
      throw validating(`cannot use --ignoreBlanks when input type is ${kind}`);
    if (type === 'parquet' && flag(a, 'jsonArray'))
      throw validating('cannot use --jsonArray when input type is Parquet');
  }
  let mode = stringOption(a, 'mode') ?? '';
  if (flag(a, 'upsert')) mode = 'upsert';
  const upsertText = stringOption(a, 'upsertFields');
  let upsertFields: string[] = [];
  if (upsertText !== undefined && upsertText !== '') {
    if (mode === '') mode = 'upsert';
    else if (mode === 'insert') throw validating('cannot use --upsertFields with --mode=insert');
    upsertFields = upsertText.split(',');
    try {
      validateFields(upsertFields);
    } catch (e) {
      throw validating(
        `invalid --upsertFields argument: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  } else if (mode !== '' && mode !== 'insert') upsertFields = ['_id'];
  if (mode === '') mode = 'insert';
  if (!['insert', 'upsert', 'merge', 'delete'].includes(mode)) {
    throw new SetupError(
      `error parsing command line options: Invalid value \`${mode}' for option \`--mode'. Allowed values are: insert, upsert, merge or delete`,
      shortUsage(tool),
    );
  }
  let ordered = flag(a, 'maintainInsertionOrder');
  if (mode !== 'insert') {
    ordered = true;
    log.info(`using upsert fields: ${upsertFields.join(',')}`);
  }
  const workersText = stringOption(a, 'numInsertionWorkers');
  let workers = 1;
  if (workersText !== undefined) {
    if (!/^-?\d+$/.test(workersText))
      throw new SetupError(
        `error parsing command line options: invalid argument for flag \`-j, --numInsertionWorkers' (expected int): ` +
          `strconv.ParseInt: parsing ${JSON.stringify(workersText)}: invalid syntax`,
        shortUsage(tool),
      );
    workers = Math.max(1, Number(workersText));
    if (workers > limits.importWorkersMax)
      throw validating(`--numInsertionWorkers is at most ${limits.importWorkersMax}`);
  }
  let collection = stringOption(a, 'collection');
  if (collection === undefined || collection === '') {
    log.always('no collection specified');
    collection = collectionFromFile(file ?? '');
    log.always(`using filename \`${collection}\` as collection`);
  }
  if (collection === '')
    throw validating('invalid collection name: collection name cannot be an empty string');
  if (collection.includes('$') || collection.startsWith('system.'))
    throw validating(`invalid collection name: collection name '${collection}' is not allowed`);
  let fields: string[] | undefined;
  if (fieldsText !== undefined) fields = fieldsText.split(',');
  else if (fieldFile !== undefined) fields = await fieldsFromFile(fieldFile);
  if (fields !== undefined)
    try {
      validateFields(fields);
    } catch (e) {
      throw validating(e instanceof Error ? e.message : String(e));
    }
  return {
    connection,
    db,
    collection,
    file,
    type: type as ImportType,
    jsonArray: flag(a, 'jsonArray'),
    headerline,
    fields,
    ignoreBlanks: flag(a, 'ignoreBlanks'),
    mode: mode as ImportMode,
    upsertFields,
    drop: flag(a, 'drop'),
    stopOnError: flag(a, 'stopOnError') || ordered,
    ordered,
    workers: ordered ? 1 : workers,
    bypassDocumentValidation: flag(a, 'bypassDocumentValidation'),
    writeConcern: writeConcernFrom(stringOption(a, 'writeConcern')),
  };
}

const commandLine: ToolCommandLine<ImportOptions> = {
  tool,
  usage: importUsage,
  options,
  parse: optionsFrom,
  report: reportToolFailure,
};

export async function importMain(argv: readonly string[], io: ToolStreams): Promise<number> {
  const start = await startTool(commandLine, argv, io);
  if ('exitCode' in start) return start.exitCode;
  const { options: o, log } = start;
  const run = new Import(o, log, io);
  let code = 0;
  try {
    await run.run();
  } catch (e) {
    code = reportToolFailure(log, e, tool);
  }
  summary(log, o, run.counts);
  return code;
}

function summary(log: ToolLog, o: ImportOptions, c: ImportCounts): void {
  if (o.writeConcern?.w === 0) {
    log.always('done');
    return;
  }
  if (o.mode === 'delete')
    log.always(
      `${c.succeeded} document(s) deleted successfully. ${c.failed} document(s) failed to delete.`,
    );
  else
    log.always(
      `${c.succeeded} document(s) imported successfully. ${c.failed} document(s) failed to import.`,
    );
}
