// The aggregation stage corpus: every case, by stage family.

import { basicCases } from './basic.js';
import { groupCases } from './group.js';
import { joinCases } from './join.js';
import { systemCases } from './system.js';
import type { StageCase } from './types.js';
import { windowCases } from './window.js';
import { writeCases } from './write.js';

export const allCases: readonly StageCase[] = [
  ...basicCases,
  ...groupCases,
  ...joinCases,
  ...writeCases,
  ...windowCases,
  ...systemCases,
];
