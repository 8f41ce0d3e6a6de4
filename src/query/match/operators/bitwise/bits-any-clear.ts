import { bitTestOperator } from './bits.js';

export const $bitsAnyClear = bitTestOperator('$bitsAnyClear', 'bitsAnyClear');
