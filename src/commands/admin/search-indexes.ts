// Atlas Search index commands: createSearchIndexes, updateSearchIndex, dropSearchIndex and
// listSearchIndexes. mongod passes them to a remote search index manager (mongot); without
// one, after parsing and authorization, 7.0 (7.0.5+) answers CommandNotSupported (115) "Search
// index commands are only supported with Atlas." and 8.0 SearchNotEnabled (31082) "Using Atlas
// Search Database Commands and the $listSearchIndexes aggregation stage requires additional
// configuration. ..." (search_index_commands / throwIfNotRunningWithRemoteSearchIndexManagement),
// which drivers' index-management tests and applications probing for Atlas Search expect. We
// answer as the version the server reports: nothing is stored.

import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import type { ActionType } from '../../auth/actions.js';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { t } from '../args.js';
import type { ArgSpec } from '../args.js';
import { onCollection } from '../authorization.js';
import { targetCollection } from '../crud/target.js';
import { defineCommand } from '../registry.js';
import type { ServerServices } from '../context.js';
import { supports } from '../version.js';
import { searchIndexesNotEnabledMessage } from '../../pipeline/index.js';
import type { CommandDefinition, Invocation } from '../registry.js';

function missing(command: string, field: string): CommandError {
  return missingFieldError(`${command}.${field}`);
}

function notSupported(services: ServerServices): CommandError {
  if (supports(services.config.reported, 'searchNotEnabled'))
    return new CommandError(ErrorCode.SearchNotEnabled, searchIndexesNotEnabledMessage);
  return new CommandError(
    ErrorCode.CommandNotSupported,
    'Search index commands are only supported with Atlas.',
  );
}

/** `indexes: [{name?, type?, definition}]`, as the IDL's SearchIndexSpec. */
function checkIndexSpecs(indexes: BsonValue[] | undefined): void {
  if (indexes === undefined) throw missing('createSearchIndexes', 'indexes');
  indexes.forEach((spec, i) => {
    if (!isPlainDocument(spec))
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'createSearchIndexes.indexes.${i}' is the wrong type, expected type 'object'`,
      );
    if (spec['definition'] === undefined) throw missing('SearchIndexSpec', 'definition');
  });
}

function searchIndexCommand<S extends ArgSpec>(
  name: string,
  action: ActionType,
  args: S,
  check: (inv: Invocation<S>) => void,
): CommandDefinition {
  return defineCommand({
    name,
    auth: onCollection(action),
    args,
    traits: { apiVersion1: true },
    run: (inv) => {
      targetCollection(inv);
      check(inv);
      throw notSupported(inv.services);
    },
  });
}

const idOrName = { id: t.string, name: t.string };

export const searchIndexCommands: CommandDefinition[] = [
  searchIndexCommand('createSearchIndexes', 'createSearchIndexes', { indexes: t.array }, (inv) =>
    checkIndexSpecs(inv.args.indexes),
  ),
  searchIndexCommand(
    'updateSearchIndex',
    'updateSearchIndex',
    { ...idOrName, definition: t.document },
    (inv) => {
      if (inv.args.definition === undefined) throw missing('updateSearchIndex', 'definition');
    },
  ),
  searchIndexCommand('dropSearchIndex', 'dropSearchIndex', idOrName, () => undefined),
  searchIndexCommand('listSearchIndexes', 'listSearchIndexes', idOrName, () => undefined),
];
