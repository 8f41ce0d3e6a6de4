// mongod's Stable API test commands (its test builds register them under enableTestCommands):
// each is a no-op whose only purpose is where it sits in the API versions, so that drivers can
// test apiStrict and apiDeprecationErrors. API Version 2 exists only for them, and only once
// the test parameter acceptApiVersion2 is set.

import { authenticatedOnly } from '../authorization.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition, CommandTraits } from '../registry.js';

function apiTestCommand(name: string, traits: CommandTraits): CommandDefinition {
  return defineCommand({
    name,
    auth: authenticatedOnly,
    args: {},
    traits: { testOnly: true, ...traits },
    run: () => ({}),
  });
}

export const apiVersionTestCommands: CommandDefinition[] = [
  apiTestCommand('testVersion2', { apiVersion2: true }),
  apiTestCommand('testVersions1And2', { apiVersion1: true, apiVersion2: true }),
  apiTestCommand('testDeprecation', { apiVersion1: true, apiDeprecatedIn: ['1'] }),
  apiTestCommand('testDeprecationInVersion2', {
    apiVersion1: true,
    apiVersion2: true,
    apiDeprecatedIn: ['2'],
  }),
  apiTestCommand('testRemoval', { apiVersion1: true }),
];
