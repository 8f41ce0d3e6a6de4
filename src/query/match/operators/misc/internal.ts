// mongod's internal operators ($_internalSchema*, $_internalExpr*, ...): they exist (mongod
// rewrites $jsonSchema and $expr into them) but clients have no business sending them. They
// answer NotImplemented rather than "unknown operator" so that the difference is visible.

import { ErrorCode, fail } from '../../../../errors.js';
import type { PathOperator, TopLevelOperator } from '../registry.js';

function notImplemented(name: string): never {
  fail(ErrorCode.NotImplemented, `${name} is an internal operator and is not implemented`);
}

const pathNames = [
  '$_internalExprEq',
  '$_internalExprGt',
  '$_internalExprGte',
  '$_internalExprLt',
  '$_internalExprLte',
  '$_internalSchemaAllElemMatchFromIndex',
  '$_internalSchemaBinDataEncryptedType',
  '$_internalSchemaBinDataSubType',
  '$_internalSchemaEq',
  '$_internalSchemaFmod',
  '$_internalSchemaMatchArrayIndex',
  '$_internalSchemaMaxItems',
  '$_internalSchemaMaxLength',
  '$_internalSchemaMinItems',
  '$_internalSchemaMinLength',
  '$_internalSchemaObjectMatch',
  '$_internalSchemaType',
  '$_internalSchemaUniqueItems',
];
const topLevelNames = [
  '$_internalBucketGeoWithin',
  '$_internalSchemaAllowedProperties',
  '$_internalSchemaCond',
  '$_internalSchemaMaxProperties',
  '$_internalSchemaMinProperties',
  '$_internalSchemaRootDocEq',
  '$_internalSchemaXor',
];

export const internalPathOperators: readonly PathOperator[] = pathNames.map((name) => ({
  name,
  parse: () => notImplemented(name),
}));
export const internalTopLevelOperators: readonly TopLevelOperator[] = topLevelNames.map((name) => ({
  name,
  parse: () => notImplemented(name),
}));
