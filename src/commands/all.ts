// Every command the server knows, in one table (also the source of listCommands).

import type { CommandDefinition } from './registry.js';
import { CommandRegistry } from './registry.js';
import { handshakeCommands } from './diag/handshake.js';
import { serverInfoCommands } from './diag/server-info.js';
import { findCommands } from './crud/find.js';
import { insert } from './crud/insert.js';
import { update } from './crud/update.js';
import { deleteCommand } from './crud/delete.js';
import { bulkWrite } from './crud/bulk-write.js';
import { findAndModify } from './crud/find-and-modify.js';
import { count, distinct } from './crud/count-distinct.js';
import { aggregate } from './crud/aggregate.js';
import { mapReduce } from './crud/map-reduce.js';
import { explain } from './crud/explain.js';
import { collectionCommands } from './admin/collections.js';
import { cappedCommands } from './admin/capped.js';
import { indexCommands } from './admin/indexes.js';
import { searchIndexCommands } from './admin/search-indexes.js';
import { sessionCommands } from './repl/sessions.js';
import { transactionCommands } from './repl/transactions.js';
import { replSetCommands } from './repl/replset.js';
import { configureFailPoint, waitForFailPoint } from './testing/configure-failpoint.js';
import { apiVersionTestCommands } from './testing/api-version.js';
import { currentOpCommands } from './diag/current-op.js';
import { profileCommands } from './diag/profile.js';
import { logCommands } from './diag/log-commands.js';
import { topCommands } from './diag/top.js';
import { fsyncCommands } from './diag/fsync.js';
import { validateCommands } from './diag/validate.js';
import { dataSizeCommands } from './diag/data-size.js';
import { applyOpsCommands } from './diag/apply-ops.js';
import { saslCommands } from './auth/sasl.js';
import { userCommands } from './auth/users.js';
import { roleCommands } from './auth/roles.js';
import { mergeAuthzCommands } from './auth/merge-authz.js';

export const allCommands: readonly CommandDefinition[] = [
  ...handshakeCommands,
  ...serverInfoCommands,
  ...currentOpCommands,
  ...profileCommands,
  ...logCommands,
  ...topCommands,
  ...fsyncCommands,
  ...validateCommands,
  ...dataSizeCommands,
  ...applyOpsCommands,
  ...findCommands,
  insert,
  update,
  deleteCommand,
  bulkWrite,
  findAndModify,
  count,
  distinct,
  aggregate,
  mapReduce,
  explain,
  ...collectionCommands,
  ...cappedCommands,
  ...indexCommands,
  ...searchIndexCommands,
  ...sessionCommands,
  ...transactionCommands,
  ...replSetCommands,
  configureFailPoint,
  waitForFailPoint,
  ...apiVersionTestCommands,
  ...saslCommands,
  ...userCommands,
  ...roleCommands,
  ...mergeAuthzCommands,
];

export function createRegistry(): CommandRegistry {
  return new CommandRegistry(allCommands);
}
