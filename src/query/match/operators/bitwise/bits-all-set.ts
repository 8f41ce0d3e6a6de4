import { bitTestOperator } from './bits.js';

export const $bitsAllSet = bitTestOperator('$bitsAllSet', 'bitsAllSet');
