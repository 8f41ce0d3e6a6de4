// The slow-operation line of a 10k-document insert: the logger measures the command (relaxed
// Extended JSON length), keeps the fields that fit in the 10 KiB attribute limit and drops the
// documents. Its floor: one walk of the same decoded command by bson's calculateObjectSize.
//
//   npx tsx bench/slow-log.ts [--root DIR] [docs=10000]
//
// --root: the repository tree whose src/log.ts to time (default this one), e.g. a `git archive`
// of another commit with node_modules linked, to compare before and after a change.

import { join, resolve } from 'node:path';
import { BSON } from 'bson';
import { makeDataset } from './lib/dataset.js';

const rootAt = process.argv.indexOf('--root');
const root = resolve(
  rootAt < 0 ? join(import.meta.dirname, '..') : (process.argv[rootAt + 1] ?? '.'),
);
const docs = Number(
  process.argv.filter((a, i) => i > 1 && a !== '--root' && i !== rootAt + 1)[0] ?? 10000,
);

interface LogModule {
  Logger: new (
    sink: { write(line: string): void },
    level: string,
  ) => {
    info(component: string, id: number, msg: string, attr: Record<string, unknown>): void;
  };
  logDocument(doc: unknown): unknown;
}
const { Logger, logDocument } = (await import(join(root, 'src/log.ts'))) as LogModule;

// As the server holds a command: decoded from its BSON, numbers as Int32/Double.
const command = BSON.deserialize(
  BSON.serialize({ insert: 'c', documents: makeDataset(docs), ordered: true, $db: 'bench' }),
  { promoteValues: false },
);

function median(fn: () => void, reps = 31): number {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times.sort((a, b) => a - b)[reps >> 1] ?? 0;
}

let bytes = 0;
const logger = new Logger({ write: (line) => (bytes = line.length) }, 'info');
const line = median(() =>
  logger.info('COMMAND', 51803, 'Slow query', {
    type: 'command',
    ns: 'bench.c',
    command: logDocument(command),
    durationMillis: 120,
  }),
);
const floor = median(() => BSON.calculateObjectSize(command));
console.log(`slow-query line, insert of ${docs} documents (${root})`);
console.log(`  line      ${line.toFixed(1)} ms  (${bytes} bytes written)`);
console.log(`  floor     ${floor.toFixed(1)} ms  (calculateObjectSize of the command)`);
console.log(`  ratio     ${(line / floor).toFixed(1)}×`);
