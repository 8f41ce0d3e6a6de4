import { bitTestOperator } from './bits.js';

export const $bitsAnySet = bitTestOperator('$bitsAnySet', 'bitsAnySet');
