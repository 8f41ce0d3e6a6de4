// Command-line handling shared by the four tools (secantus-dump, -restore, -export, -import):
// mongo-tools' flags (--uri or a positional connection string, --host/--port,
// -u/-p/--authenticationDatabase, -d/-c, -v/--verbose, --quiet, --help, --version), parsed by
// node's util.parseArgs, and the start of every tool's main (startTool). mongo-tools'
// optional-value flag `--archive` (no value: standard input/output) becomes `--archive=-`.

import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { MongoError } from 'mongodb';
import type { MongoClientOptions } from 'mongodb';
import { limits } from '../limits.js';
import { ToolError } from './tool-error.js';
import { ToolLog } from './tool-log.js';
import type { ToolStreams } from './tool-log.js';

export const toolVersion = '0.1.0';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const connectionOptions: OptionSpec = {
  uri: { type: 'string' },
  host: { type: 'string', short: 'h' },
  port: { type: 'string' },
  username: { type: 'string', short: 'u' },
  password: { type: 'string', short: 'p' },
  authenticationDatabase: { type: 'string' },
  authenticationMechanism: { type: 'string' },
  verbose: { type: 'boolean', short: 'v', multiple: true },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
};

/** -d and -c, which every tool takes. */
export const namespaceOptions: OptionSpec = {
  db: { type: 'string', short: 'd' },
  collection: { type: 'string', short: 'c' },
};

/** mongo-tools' namespace filters (dump and restore), each repeatable. */
export const namespaceFilterOptions: OptionSpec = {
  nsInclude: { type: 'string', multiple: true },
  nsExclude: { type: 'string', multiple: true },
  excludeCollection: { type: 'string', multiple: true },
  excludeCollectionsWithPrefix: { type: 'string', multiple: true },
};

/** -j, --numParallelCollections (dump and restore). */
export const parallelCollectionsOptions: OptionSpec = {
  numParallelCollections: { type: 'string', short: 'j' },
};

export const connectionUsage = `connection options:
  --uri=<uri>                      mongodb:// or mongodb+srv:// connection string (or give it as an argument)
  -h, --host=<host>[:<port>]       server to connect to; <setname>/<host1>,<host2> for a replica set
      --port=<port>                server port (default 27017)
  -u, --username=<name>            user to authenticate as
  -p, --password=<password>        password
      --authenticationDatabase=<db>
      --authenticationMechanism=<mechanism>

general options:
  -v, --verbose                    more detailed log output (repeat for more: -vv)
      --quiet                      hide all log output but a failure
      --help                       print this help and exit
      --version                    print the tool's version and exit`;

export interface ParsedArgs {
  readonly values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  readonly positionals: readonly string[];
}

export function parseToolArgs(argv: readonly string[], options: OptionSpec): ParsedArgs {
  const args = argv.map((a) => (a === '--archive' ? '--archive=-' : a));
  try {
    const r = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: r.values as ParsedArgs['values'], positionals: r.positionals };
  } catch (e) {
    throw new ToolError(
      `error parsing command line options: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

export function stringOption(a: ParsedArgs, name: string): string | undefined {
  const v = a.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function listOption(a: ParsedArgs, name: string): string[] {
  const v = a.values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function flag(a: ParsedArgs, name: string): boolean {
  const v = a.values[name];
  return v === true || (Array.isArray(v) && v.length > 0);
}

export function verbosity(a: ParsedArgs): number {
  const v = a.values['verbose'];
  return Array.isArray(v) ? v.length : v === true ? 1 : 0;
}

export function positiveInteger(
  a: ParsedArgs,
  name: string,
  fallback: number,
  max: number,
): number {
  const text = stringOption(a, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new ToolError(
      `bad option: ${name} must be a positive integer, not ${JSON.stringify(text)}`,
    );
  if (n > max) throw new ToolError(`bad option: ${name} is at most ${max}`);
  return n;
}

export interface NamespaceFilters {
  readonly nsInclude: string[];
  readonly nsExclude: string[];
  readonly excludeCollections: string[];
  readonly excludeCollectionPrefixes: string[];
}

/** The values of namespaceFilterOptions. */
export function namespaceFilters(a: ParsedArgs): NamespaceFilters {
  return {
    nsInclude: listOption(a, 'nsInclude'),
    nsExclude: listOption(a, 'nsExclude'),
    excludeCollections: listOption(a, 'excludeCollection'),
    excludeCollectionPrefixes: listOption(a, 'excludeCollectionsWithPrefix'),
  };
}

/** --numParallelCollections: 4 by default, at most limits.toolParallelCollectionsMax. */
export function parallelCollections(a: ParsedArgs): number {
  return positiveInteger(a, 'numParallelCollections', 4, limits.toolParallelCollectionsMax);
}

export interface Connection {
  readonly uri: string;
  readonly clientOptions: MongoClientOptions;
}

function isConnectionString(s: string): boolean {
  return s.startsWith('mongodb://') || s.startsWith('mongodb+srv://');
}

/** Splits the positionals into the connection string (if any) and the rest. */
export function connectionFrom(a: ParsedArgs): { connection: Connection; rest: string[] } {
  const fromArgs = a.positionals.filter(isConnectionString);
  const rest = a.positionals.filter((p) => !isConnectionString(p));
  if (fromArgs.length > 1)
    throw new ToolError(
      'error parsing positional arguments: provide only one MongoDB connection string',
    );
  const flagUri = stringOption(a, 'uri');
  if (flagUri !== undefined && fromArgs.length > 0)
    throw new ToolError(
      'illegal argument combination: cannot specify --uri and a connection string',
    );
  const uri = flagUri ?? fromArgs[0];
  const host = stringOption(a, 'host');
  const port = stringOption(a, 'port');
  if (uri !== undefined && (host !== undefined || port !== undefined))
    throw new ToolError(
      'illegal argument combination: cannot specify --host or --port and a connection string',
    );
  if (uri !== undefined && !isConnectionString(uri))
    throw new ToolError('connection string must begin with mongodb:// or mongodb+srv://');
  if (port !== undefined && !/^\d+$/.test(port))
    throw new ToolError(`invalid port ${JSON.stringify(port)}`);
  let built = uri;
  if (built === undefined) {
    let hosts = host ?? 'localhost';
    let setName: string | undefined;
    const slash = hosts.indexOf('/');
    if (slash >= 0) {
      setName = hosts.slice(0, slash);
      hosts = hosts.slice(slash + 1);
    }
    const list = hosts
      .split(',')
      .filter((h) => h !== '')
      .map((h) => (port !== undefined && !/:\d+$/.test(h) ? `${h}:${port}` : h));
    built =
      `mongodb://${list.join(',')}/` +
      (setName !== undefined ? `?replicaSet=${encodeURIComponent(setName)}` : '');
  }
  const clientOptions: MongoClientOptions = {
    serverSelectionTimeoutMS: 30_000,
    appName: 'secantus-tools',
  };
  const username = stringOption(a, 'username');
  if (username !== undefined)
    clientOptions.auth = { username, password: stringOption(a, 'password') ?? '' };
  const authSource = stringOption(a, 'authenticationDatabase');
  if (authSource !== undefined) clientOptions.authSource = authSource;
  const mechanism = stringOption(a, 'authenticationMechanism');
  if (mechanism !== undefined)
    clientOptions.authMechanism = mechanism as MongoClientOptions['authMechanism'];
  return { connection: { uri: built, clientOptions }, rest };
}

/** Prints a failure as mongo-tools do ("Failed: ..."); returns the exit code, 1. */
export function reportFailure(log: ToolLog, e: unknown, tool: string): number {
  log.stopBars();
  if (e instanceof ToolError || e instanceof MongoError) {
    log.failure(e.message);
    if (e.message.startsWith('error parsing command line options'))
      log.always(`try '${tool} --help' for more information`);
  } else log.failure(e instanceof Error ? (e.stack ?? e.message) : String(e));
  return 1;
}

/** What a tool's main needs to read its command line. */
export interface ToolCommandLine<O> {
  readonly tool: string;
  readonly usage: string;
  readonly options: OptionSpec;
  /** The tool's own options; --help and --version are answered before it is called. */
  parse(a: ParsedArgs, log: ToolLog): O | Promise<O>;
  /** Prints a failure as the tool prints it; returns the exit code (1). */
  report(log: ToolLog, e: unknown, tool: string): number;
}

export type ToolStart<O> =
  { readonly options: O; readonly log: ToolLog } | { readonly exitCode: number };

/**
 * The start of every tool's main: parses the command line, makes the log it asks for (-v,
 * --quiet), answers --help and --version on standard output, and parses the tool's options.
 * Returns them, or the exit code when the tool is done (0 after --help, 1 on a bad option).
 */
export async function startTool<O>(
  cli: ToolCommandLine<O>,
  argv: readonly string[],
  io: ToolStreams,
): Promise<ToolStart<O>> {
  let log = new ToolLog(io.stderr, 0, false);
  try {
    const a = parseToolArgs(argv, cli.options);
    log = new ToolLog(io.stderr, verbosity(a), flag(a, 'quiet'));
    if (flag(a, 'help')) {
      io.stdout.write(`${cli.usage}\n`);
      return { exitCode: 0 };
    }
    if (flag(a, 'version')) {
      io.stdout.write(`${cli.tool} version: ${toolVersion}\n`);
      return { exitCode: 0 };
    }
    return { options: await cli.parse(a, log), log };
  } catch (e) {
    return { exitCode: cli.report(log, e, cli.tool) };
  }
}
