// The operator registries the parser dispatches through, assembled from the families.

import { arrayOperators } from './array/index.js';
import { bitwiseOperators } from './bitwise/index.js';
import { comparisonOperators } from './comparison/index.js';
import { elementOperators } from './element/index.js';
import { evaluationPathOperators, evaluationTopLevelOperators } from './evaluation/index.js';
import { geoOperators } from './geo/geo.js';
import { logicalPathOperators, logicalTopLevelOperators } from './logical/index.js';
import { miscPathOperators, miscTopLevelOperators } from './misc/index.js';
import { registry } from './registry.js';
import type { PathOperator, TopLevelOperator } from './registry.js';

export const pathOperators: ReadonlyMap<string, PathOperator> = registry<PathOperator>(
  comparisonOperators,
  logicalPathOperators,
  elementOperators,
  evaluationPathOperators,
  arrayOperators,
  bitwiseOperators,
  geoOperators,
  miscPathOperators,
);

export const topLevelOperators: ReadonlyMap<string, TopLevelOperator> = registry<TopLevelOperator>(
  logicalTopLevelOperators,
  evaluationTopLevelOperators,
  miscTopLevelOperators,
);
