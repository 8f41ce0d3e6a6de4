import { bitTestOperator } from './bits.js';

export const $bitsAllClear = bitTestOperator('$bitsAllClear', 'bitsAllClear');
