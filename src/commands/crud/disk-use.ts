// allowDiskUse and the memory limits of blocking stages, as a command sees them when it starts:
// the command's own allowDiskUse, else the allowDiskUseByDefault parameter (true since mongod
// 6.0, so only an explicit allowDiskUse: false makes an oversized sort or group fail), and the
// limits internalQueryMaxBlockingSortMemoryUsageBytes / internalDocumentSourceGroupMaxMemoryBytes
// set with setParameter. An operation that may use the disk gets its own SpillScope, which
// whoever ends the operation (its cursor, or the command itself) releases.

import { numericValue } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { limits } from '../../limits.js';
import type { MemoryPolicy } from '../../query/memory.js';
import { SpillScope } from '../../query/spill/area.js';
import type { ServerServices } from '../context.js';

export interface DiskUse {
  readonly allowDiskUse: boolean;
  readonly memory: MemoryPolicy;
  /** Deletes the operation's spill files (idempotent). */
  release(): void;
}

function parameter(services: ServerServices, name: string, fallback: number): number {
  return numericValue(services.parameters.get(name) as BsonValue) ?? fallback;
}

export function diskUseFor(services: ServerServices, allowDiskUse: boolean | undefined): DiskUse {
  const allowed = allowDiskUse ?? services.parameters.get('allowDiskUseByDefault') !== false;
  const spill = allowed ? new SpillScope(services.spill) : undefined;
  return {
    allowDiskUse: allowed,
    memory: {
      sortBytesMax: parameter(
        services,
        'internalQueryMaxBlockingSortMemoryUsageBytes',
        limits.sortMemoryBytesMax,
      ),
      groupBytesMax: parameter(
        services,
        'internalDocumentSourceGroupMaxMemoryBytes',
        limits.groupMemoryBytesMax,
      ),
      bucketAutoBytesMax: parameter(
        services,
        'internalDocumentSourceBucketAutoMaxMemoryBytes',
        limits.bucketAutoMemoryBytesMax,
      ),
      setWindowFieldsBytesMax: parameter(
        services,
        'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
        limits.setWindowFieldsMemoryBytesMax,
      ),
      graphLookupBytesMax: parameter(
        services,
        'internalDocumentSourceGraphLookupMaxMemoryBytes',
        limits.graphLookupMemoryBytesMax,
      ),
      spill,
    },
    release: () => spill?.release(),
  };
}

/** Runs `fn`, releasing the operation's spill files if it throws (a cursor that outlives the command releases them itself). */
export function releasingOnError<T>(disk: DiskUse, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    disk.release();
    throw e;
  }
}
