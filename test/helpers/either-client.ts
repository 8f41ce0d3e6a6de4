// One driver-level suite, two kinds of client: a test file reads its kind from its own URL
// (`?client=embedded`, set by the *-embedded.test.ts files that import it again) and gets
// either a MongoClient on an in-process server over a socket, or the secantusdb/embedded
// client, which has no socket. The embedded client is typed as the driver's MongoClient so
// the same test code type-checks once; what it lacks fails the test at run time, which is
// the point (docs/embedded.md lists what the embedded client does not do).

import type { MongoClient, MongoClientOptions } from 'mongodb';

import { open } from '../../src/embed/embedded/index.js';
import type { SecantusServerOptions } from '../../src/embed/index.js';
import { startTestServer } from './server.js';

export type ClientKind = 'socket' | 'embedded';

/** The kind of client a test module runs with: `?client=embedded` in its URL, else socket. */
export function clientKindOf(moduleUrl: string): ClientKind {
  return new URL(moduleUrl).searchParams.get('client') === 'embedded' ? 'embedded' : 'socket';
}

/** A suite's title with its client kind when that is not the socket. */
export function titled(title: string, kind: ClientKind): string {
  return kind === 'socket' ? title : `${title} (embedded client)`;
}

export interface EitherClient {
  readonly kind: ClientKind;
  readonly client: MongoClient;
  /** The server's TCP port; undefined for the embedded client (there is none). */
  readonly port: number | undefined;
  stop(): Promise<void>;
}

export async function startEitherClient(
  kind: ClientKind,
  options: Pick<SecantusServerOptions, 'replSet' | 'enableTestCommands'> = {},
  clientOptions: MongoClientOptions = {},
): Promise<EitherClient> {
  if (kind === 'socket') {
    const ts = await startTestServer(options, clientOptions);
    return { kind, client: ts.client, port: ts.server.port, stop: () => ts.stop() };
  }
  const embedded = await open({
    replSet: options.replSet ?? 'rs0',
    enableTestCommands: options.enableTestCommands ?? true,
  });
  return {
    kind,
    // Structurally a subset of MongoClient: the suites use only what both have.
    client: embedded as unknown as MongoClient,
    port: undefined,
    stop: () => embedded.close(),
  };
}

/** For tests that need a socket (raw wire messages, a second driver client): skipped embedded. */
export function needsSocket(kind: ClientKind): { skip: string | false } {
  return { skip: kind === 'embedded' ? 'needs a socket' : false };
}
