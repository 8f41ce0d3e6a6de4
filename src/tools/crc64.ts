// The archive's per-namespace checksum: CRC-64 with the ECMA-182 polynomial as Go's
// hash/crc64 computes it with crc64.ECMA (reflected, initial value and final XOR all ones;
// the catalogue's CRC-64/XZ, also named CRC-64/GO-ECMA). The arithmetic is js-crc's.

import { createRequire } from 'node:module';
import type * as JsCrcModels from 'js-crc/models';
import { invariant } from '../errors.js';

// js-crc is CommonJS whose exports Node cannot list statically, so it is required.
const models = createRequire(import.meta.url)('js-crc/models') as typeof JsCrcModels;
const crc64GoEcma = models.crc_64_go_ecma;

export class Crc64 {
  private readonly state = crc64GoEcma.create();
  private final: bigint | undefined;

  update(bytes: Uint8Array): void {
    invariant(this.final === undefined, 'crc64: update after the value was taken');
    this.state.update(bytes);
  }

  /** The checksum as an unsigned 64-bit integer (no update may follow). */
  value(): bigint {
    this.final ??= BigInt(`0x${this.state.hex()}`);
    return this.final;
  }
}
