// Every corpus family, for the unit runner and (later) the through-the-driver runner.

import { arrayOperatorCases } from './array-ops.js';
import { arrayAndPathCases } from './arrays-and-paths.js';
import { bitwiseCases } from './bitwise.js';
import { comparisonCases } from './comparison.js';
import { elementCases } from './element.js';
import { matchErrorCases } from './errors.js';
import { evaluationCases } from './evaluation.js';
import { inAndLogicalCases } from './in-logical.js';
import { jsonSchemaCases } from './json-schema.js';
import { nullSemanticsCases } from './null-semantics.js';
import type { MatchCase, MatchErrorCase } from './types.js';

export const allMatchCases: readonly MatchCase[] = [
  ...nullSemanticsCases,
  ...arrayAndPathCases,
  ...comparisonCases,
  ...inAndLogicalCases,
  ...elementCases,
  ...arrayOperatorCases,
  ...evaluationCases,
  ...bitwiseCases,
  ...jsonSchemaCases,
];
export const allMatchErrorCases: readonly MatchErrorCase[] = [...matchErrorCases];
