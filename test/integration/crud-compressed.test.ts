// The CRUD suite (crud.test.ts) once more per wire compressor, through a driver client with
// compressors=<name>: every request and reply of the suite travels as OP_COMPRESSED
// (compression.test.ts checks, by the server's counters, that the driver really compresses).

import { test } from 'node:test';
import { driverCompressors } from '../helpers/compressors.js';

for (const [name, unavailable] of await driverCompressors()) {
  if (unavailable !== '') test(`CRUD, compressors=${name}`, { skip: unavailable }, () => undefined);
  else await import(`./crud.test.js?compressors=${name}`);
}
