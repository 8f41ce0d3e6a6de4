// Test helpers: an in-process server plus a connected driver client.

import { MongoClient } from 'mongodb';
import type { MongoClientOptions } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import type { SecantusServerOptions } from '../../src/embed/index.js';

export interface TestServer {
  readonly server: SecantusServer;
  readonly client: MongoClient;
  readonly uri: string;
  /** A fresh client on the same server (closed by stop()). */
  newClient(options?: MongoClientOptions, uri?: string): Promise<MongoClient>;
  stop(): Promise<void>;
}

export async function startTestServer(
  options: SecantusServerOptions = {},
  clientOptions: MongoClientOptions = {},
): Promise<TestServer> {
  const server = await SecantusServer.start(options);
  const clients: MongoClient[] = [];
  const newClient = async (
    opts: MongoClientOptions = {},
    uri: string = server.uri,
  ): Promise<MongoClient> => {
    const c = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, ...opts });
    await c.connect();
    clients.push(c);
    return c;
  };
  const client = await newClient(clientOptions);
  return {
    server,
    client,
    uri: server.uri,
    newClient,
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await server.stop();
    },
  };
}
