// Comparison operators: $cmp $eq $ne $gt $gte $lt $lte. They compare any two values in the
// BSON total order (missing ranks with undefined, below null), so {$eq: ["$absent", null]} is
// false, unlike find's {field: null}.

import { Int32 } from 'bson';
import { compareValues } from '../values.js';
import { naryOperator } from './operator.js';
import type { OperatorDefinition, Value } from './types.js';

function comparison(name: string, test: (cmp: number) => boolean): OperatorDefinition {
  return naryOperator(name, 2, ([a, b], collator) =>
    test(compareValues(a as Value, b as Value, collator)),
  );
}

export const comparisonOperators: readonly OperatorDefinition[] = [
  naryOperator(
    '$cmp',
    2,
    ([a, b], collator) => new Int32(compareValues(a as Value, b as Value, collator)),
  ),
  comparison('$eq', (c) => c === 0),
  comparison('$ne', (c) => c !== 0),
  comparison('$gt', (c) => c > 0),
  comparison('$gte', (c) => c >= 0),
  comparison('$lt', (c) => c < 0),
  comparison('$lte', (c) => c <= 0),
];
