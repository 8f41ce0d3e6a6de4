// Every corpus file, by group. A runner (the unit test here, or a replay against a real
// mongod) iterates this table.

import { arithmeticCases } from './arithmetic.js';
import { arrayCases } from './arrays.js';
import { compareCases } from './compare.js';
import { miscCases } from './misc.js';
import { orderCases } from './order.js';
import { parseCases } from './parse.js';
import { positionalCases } from './positional.js';
import { renameCases } from './rename.js';
import { replacementCases } from './replacement.js';
import { setCases } from './set.js';
import type { UpdateCase } from './types.js';
import { upsertCases } from './upsert.js';
import { validationCases } from './validation.js';

export const corpus: ReadonlyArray<readonly [string, readonly UpdateCase[]]> = [
  ['$set / $setOnInsert / $unset', setCases],
  ['$inc / $mul', arithmeticCases],
  ['$min / $max', compareCases],
  ['$rename', renameCases],
  ['array operators', arrayCases],
  ['positional operators', positionalCases],
  ['$bit / $currentDate', miscCases],
  ['parsing', parseCases],
  ['replacement', replacementCases],
  ['upsert', upsertCases],
  ['storage validation', validationCases],
  ['field order', orderCases],
];

export type { UpdateCase } from './types.js';
export { NEXT_TS, NOW, isErrorExpectation } from './types.js';
