// The Prometheus endpoint (beyond mongod; --metricsPort): http://<bind>:<port>/metrics in the
// text exposition format, through prom-client. Per-command counts and failures and storage
// sizes are read from the server's own counters when scraped; latencies are observed per
// command into a histogram (the dispatcher's one hook, commands/metrics.ts); the process
// metrics are prom-client's defaults. It binds 127.0.0.1 unless told otherwise: it has no
// authentication and no TLS, whatever the database port has, so exposing it is a choice of its
// own (--metricsBindIp), not a side effect of --bind_ip.

import * as http from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServerServices } from '../commands/context.js';
import { collectionSizes } from '../catalog/sizes.js';
import { limits } from '../limits.js';

export interface MetricsOptions {
  readonly port: number;
  readonly bindIp: string;
}

function register(services: ServerServices): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'secantus_' });
  const m = services.metrics;

  const latency = new Histogram({
    name: 'secantus_command_duration_seconds',
    help: 'Time commands take, by command',
    labelNames: ['command'],
    buckets: [...limits.metricsLatencyBucketsSec],
    registers: [registry],
  });
  m.observer = { onCommand: (name, micros) => latency.observe({ command: name }, micros / 1e6) };

  new Counter({
    name: 'secantus_commands_total',
    help: 'Commands run, by command (serverStatus metrics.commands.<name>.total)',
    labelNames: ['command'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, c] of m.commands) this.inc({ command: name }, c.total);
    },
  });
  new Counter({
    name: 'secantus_command_failures_total',
    help: 'Commands that failed, by command (metrics.commands.<name>.failed)',
    labelNames: ['command'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, c] of m.commands) if (c.failed > 0) this.inc({ command: name }, c.failed);
    },
  });
  new Counter({
    name: 'secantus_opcounters_total',
    help: 'Operations by type, as serverStatus opcounters',
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [type, n] of Object.entries(services.opcounters)) this.inc({ type }, n);
    },
  });
  new Counter({
    name: 'secantus_documents_total',
    help: 'Documents returned, inserted, updated and deleted (metrics.document)',
    labelNames: ['op'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [op, n] of Object.entries(m.document)) this.inc({ op }, n);
    },
  });
  new Counter({
    name: 'secantus_network_bytes_total',
    help: 'Bytes received and sent on client connections',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ direction: 'in' }, m.network.bytesIn);
      this.inc({ direction: 'out' }, m.network.bytesOut);
    },
  });
  new Gauge({
    name: 'secantus_connections',
    help: 'Client connections open now',
    registers: [registry],
    collect() {
      this.set(services.connections.current);
    },
  });
  new Counter({
    name: 'secantus_connections_created_total',
    help: 'Client connections accepted since start',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(services.connections.totalCreated);
    },
  });
  new Gauge({
    name: 'secantus_storage_engine_bytes',
    help: "Bytes of the storage engine's files (memory engine: bytes held)",
    registers: [registry],
    collect() {
      this.set(services.engine.stats().storageSizeBytes);
    },
  });
  new Gauge({
    name: 'secantus_collection_bytes',
    help: 'Collection sizes: data (documents), storage (record table), index (all its indexes)',
    labelNames: ['db', 'collection', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      let n = 0;
      for (const db of services.catalog.databaseNames()) {
        for (const coll of services.catalog.collections(db)) {
          if (n++ >= limits.metricsCollectionsMax) return;
          const s = collectionSizes(services.engine, coll);
          const labels = { db, collection: coll.meta.name };
          this.set({ ...labels, kind: 'data' }, s.dataBytes);
          this.set({ ...labels, kind: 'storage' }, s.storageBytes);
          this.set({ ...labels, kind: 'index' }, s.totalIndexBytes);
        }
      }
    },
  });
  new Gauge({
    name: 'secantus_oplog_window_seconds',
    help: 'Time between the oldest and the newest oplog entry (replica-set mode)',
    registers: [registry],
    collect() {
      const w = services.oplog?.store.windowSeconds();
      if (w !== undefined) this.set(w);
    },
  });
  new Gauge({
    name: 'secantus_uptime_seconds',
    help: 'Seconds since the server started',
    registers: [registry],
    collect() {
      this.set((Date.now() - services.startedAtMs) / 1000);
    },
  });
  return registry;
}

export class MetricsEndpoint {
  private constructor(
    private readonly http: http.Server,
    readonly port: number,
  ) {}

  static async start(services: ServerServices, options: MetricsOptions): Promise<MetricsEndpoint> {
    const registry = register(services);
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (e: unknown) =>
          res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`${e instanceof Error ? e.message : String(e)}\n`),
      );
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: options.port, host: options.bindIp }, () => {
        server.off('error', reject);
        const addr = server.address();
        resolve(typeof addr === 'object' && addr !== null ? addr.port : options.port);
      });
    });
    services.logger.info('NETWORK', 8100001, 'Serving Prometheus metrics', {
      url: `http://${options.bindIp.includes(':') ? `[${options.bindIp}]` : options.bindIp}:${port}/metrics`,
    });
    return new MetricsEndpoint(server, port);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.http.closeAllConnections();
      this.http.close(() => resolve());
    });
  }
}
