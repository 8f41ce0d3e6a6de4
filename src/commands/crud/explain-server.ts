// What every explain reply carries about the server: serverInfo and serverParameters, as
// mongod prints them (explain of find, aggregate and the others; aggregate's own explain too).

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { ServerServices } from '../context.js';

/** serverInfo as mongod reports it in explain output. */
export function explainServerInfo(services: ServerServices): BsonDocument {
  return {
    host: services.config.advertisedHost.replace(/:\d+$/, ''),
    port: new Int32(services.config.port),
    version: services.config.reported.version,
    gitVersion: '0000000000000000000000000000000000000000',
  };
}

/** The limits mongod lists under serverParameters (the settable ones as currently set). */
export function explainServerParameters(parameters: ReadonlyMap<string, unknown>): BsonDocument {
  const mb100 = new Int32(100 * 1024 * 1024);
  const current = (name: string): BsonValue =>
    (parameters.get(name) as BsonValue | undefined) ?? mb100;
  return {
    internalQueryFacetBufferSizeBytes: mb100,
    internalQueryFacetMaxOutputDocSizeBytes: mb100,
    internalLookupStageIntermediateDocumentMaxSizeBytes: mb100,
    internalDocumentSourceGroupMaxMemoryBytes: current('internalDocumentSourceGroupMaxMemoryBytes'),
    internalQueryMaxBlockingSortMemoryUsageBytes: current(
      'internalQueryMaxBlockingSortMemoryUsageBytes',
    ),
    internalQueryProhibitBlockingMergeOnMongoS: new Int32(0),
    internalQueryMaxAddToSetBytes: mb100,
    internalDocumentSourceSetWindowFieldsMaxMemoryBytes: mb100,
    internalQueryFrameworkControl: 'trySbeRestricted',
  };
}
