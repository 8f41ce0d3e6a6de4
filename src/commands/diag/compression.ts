// hello's compression negotiation, as mongod's MessageCompressorManager::serverNegotiate: the
// client lists what it can use, in its order of preference; the reply lists those this server
// has enabled, in the client's order, and omits the field when none is shared. A hello without
// the field repeats what was negotiated before. What the server then does with a compressed
// request does not depend on this: it is answered with the compressor it came with.

import { bsonTypeName } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { ConnectionState } from '../context.js';

export function negotiateCompression(
  serverCompressors: readonly string[],
  connection: ConnectionState,
  requested: readonly BsonValue[] | undefined,
  reply: BsonDocument,
): void {
  if (requested !== undefined) {
    const negotiated: string[] = [];
    requested.forEach((name, i) => {
      if (typeof name !== 'string') {
        throw new CommandError(
          ErrorCode.TypeMismatch,
          `BSON field 'hello.compression.${i}' is the wrong type '${bsonTypeName(name)}', expected type 'string'`,
        );
      }
      if (serverCompressors.includes(name)) negotiated.push(name);
    });
    connection.negotiatedCompressors = negotiated;
  }
  const current = connection.negotiatedCompressors;
  if (current !== undefined && current.length > 0) reply['compression'] = [...current];
}
