// The server under test: an in-process SecantusDB (src/embed) or whatever SECANTUS_URI names.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MongoClient } from 'mongodb';
import { type Doc, isDocument } from './bson-values.js';
import { type ServerFacts, type Topology } from './requirements.js';

export interface ServerHandle {
  uri: string;
  /** How the server was obtained, for reports. */
  source: string;
  stop(): Promise<void>;
}

export class NoServerError extends Error {
  override name = 'NoServerError';
}

const EMBED_TS = new URL('../../../src/embed/index.ts', import.meta.url);
const EMBED_JS = new URL('../../../src/embed/index.js', import.meta.url);

interface EmbedModule {
  SecantusServer?: {
    start(options: {
      replSet: string;
      compatibilityVersion?: string;
    }): Promise<{ uri: string; stop(): Promise<void> }>;
  };
}

/** Whether a server can be had at all: SECANTUS_URI, or the embed module exists. */
export function serverAvailable(): boolean {
  return process.env.SECANTUS_URI !== undefined || existsSync(fileURLToPath(EMBED_TS));
}

export async function acquireServer(topology: 'single' | 'replicaset'): Promise<ServerHandle> {
  const fromEnv = process.env.SECANTUS_URI;
  if (fromEnv !== undefined && fromEnv !== '')
    return { uri: fromEnv, source: 'SECANTUS_URI', stop: async () => undefined };
  if (!existsSync(fileURLToPath(EMBED_TS))) {
    throw new NoServerError(
      'no server: src/embed/index.ts does not exist and SECANTUS_URI is not set',
    );
  }
  // A computed specifier: this file must load (and type-check) before the embed module exists.
  const specifier: string = EMBED_JS.href;
  const mod = (await import(specifier)) as EmbedModule;
  if (mod.SecantusServer === undefined || typeof mod.SecantusServer.start !== 'function') {
    throw new NoServerError('src/embed/index.ts does not export SecantusServer.start');
  }
  // SECANTUS_COMPATIBILITY_VERSION (e.g. 8.0): the MongoDB version the server presents as.
  const compat = process.env.SECANTUS_COMPATIBILITY_VERSION;
  const server = await mod.SecantusServer.start({
    replSet: topology === 'replicaset' ? 'rs0' : '',
    ...(compat === undefined || compat === '' ? {} : { compatibilityVersion: compat }),
  });
  return {
    uri: server.uri,
    source: `in-process SecantusServer (${topology}${compat ? `, as ${compat}` : ''})`,
    stop: () => server.stop(),
  };
}

/** Version, topology and parameters of the server, as the runner's requirements see them. */
export async function serverFacts(
  internal: MongoClient,
  uri: string,
): Promise<ServerFacts & { versionString: string }> {
  const admin = internal.db('admin');
  const hello = await admin.command({ hello: 1 }).catch(() => admin.command({ isMaster: 1 }));
  const build = await admin.command({ buildInfo: 1 });
  const arr = Array.isArray(build.versionArray)
    ? build.versionArray.map((x: unknown) => Number(x))
    : [];
  const version: [number, number, number] = [arr[0] ?? 0, arr[1] ?? 0, arr[2] ?? 0];
  let topology: Topology = 'single';
  if (/[?&]loadBalanced=true/i.test(uri)) topology = 'load-balanced';
  else if (hello.msg === 'isdbgrid') topology = 'sharded';
  else if (typeof hello.setName === 'string') topology = 'replicaset';
  let params: Promise<Doc | undefined> | undefined;
  return {
    version,
    versionString: typeof build.version === 'string' ? build.version : version.join('.'),
    topology,
    auth: /^mongodb(\+srv)?:\/\/[^/]*@/.test(uri),
    parameters: () => {
      params ??= admin.command({ getParameter: '*' }).then(
        (r) => (isDocument(r) ? r : undefined),
        () => undefined,
      );
      return params;
    },
  };
}
