// $bitsAllSet, $bitsAllClear, $bitsAnySet, $bitsAnyClear: the data and counts of
// jstests/core/query/bittest.js.

import type { MatchCase } from './types.js';
import { values } from './types.js';
import type { Literal } from './values.js';
import { bin, dbl, dec, long } from './values.js';

const SOURCE = 'mongodb/mongo jstests/core/query/bittest.js';

function counts(label: string, docs: Array<{ [key: string]: Literal }>, cases: Array<[Literal, number]>): MatchCase[] {
  return cases.map(([condition, n], i) => ({
    name: `bits ${label} #${i}: ${JSON.stringify(Object.keys(condition as object))}`,
    filter: { a: condition },
    docs,
    expectedCount: n,
    source: SOURCE,
  }));
}

const numbers = values(0, 1, 54, 88, 255, dbl(1e18));
const longs = values(0, 1, long('9223372036854775807'), long('6917529027641081856'), long('2305843009213693952'));
const negatives = values(dbl(-0), -1, -54, dbl(-1e18));
const allPositions = Array.from({ length: 64 }, (_, i) => i);
const binaries = values(
  bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
  bin('AANgAAAAAAAAAAAAAAAAAAAAAAAA'),
  bin('JANgqwetkqwklEWRbWERKKJREtbq'),
  bin('////////////////////////////'),
);
const filtered = values(
  0, 1, [dbl(1.1), 54], 88, 255, dbl(NaN), dbl(1.1), dbl(-1.1), dbl(-Infinity), dbl(Infinity),
  dec('Infinity'), dec('-Infinity'), dec('NaN'), dec('1.1'), dec('-1.1'),
);
const variableBinaries = values(
  bin('ZG9n'),
  bin('JA4A8gAxqTwciCuF5GGzAA=='),
  bin('JA4A8gAxqTwciCuF5GGzAA==', 1),
  bin('VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=='),
  bin('BAAAADEyMzQ=', 2),
);

export const bitwiseCases: MatchCase[] = [
  ...counts('numbers', numbers, [
    [{ $bitsAllSet: 0 }, 6], [{ $bitsAllSet: 1 }, 2], [{ $bitsAllSet: 16 }, 3], [{ $bitsAllSet: 54 }, 2],
    [{ $bitsAllSet: 55 }, 1], [{ $bitsAllSet: 88 }, 2], [{ $bitsAllSet: 255 }, 1], [{ $bitsAllClear: 0 }, 6],
    [{ $bitsAllClear: 1 }, 4], [{ $bitsAllClear: 16 }, 3], [{ $bitsAllClear: 129 }, 4], [{ $bitsAllClear: 255 }, 2],
    [{ $bitsAnySet: 0 }, 0], [{ $bitsAnySet: 9 }, 3], [{ $bitsAnySet: 255 }, 4], [{ $bitsAnyClear: 0 }, 0],
    [{ $bitsAnyClear: 18 }, 4], [{ $bitsAnyClear: 24 }, 4], [{ $bitsAnyClear: 255 }, 5],
    [{ $bitsAllSet: [] }, 6], [{ $bitsAllSet: [0] }, 2], [{ $bitsAllSet: [4] }, 3], [{ $bitsAllSet: [1, 2, 4, 5] }, 2],
    [{ $bitsAllSet: [0, 1, 2, 4, 5] }, 1], [{ $bitsAllSet: [3, 4, 6] }, 2], [{ $bitsAllSet: [0, 1, 2, 3, 4, 5, 6, 7] }, 1],
    [{ $bitsAllClear: [] }, 6], [{ $bitsAllClear: [0] }, 4], [{ $bitsAllClear: [4] }, 3], [{ $bitsAllClear: [1, 7] }, 4],
    [{ $bitsAllClear: [0, 1, 2, 3, 4, 5, 6, 7] }, 2], [{ $bitsAnySet: [] }, 0], [{ $bitsAnySet: [1, 3] }, 3],
    [{ $bitsAnySet: [0, 1, 2, 3, 4, 5, 6, 7] }, 4], [{ $bitsAnyClear: [] }, 0], [{ $bitsAnyClear: [1, 4] }, 4],
    [{ $bitsAnyClear: [3, 4] }, 4], [{ $bitsAnyClear: [0, 1, 2, 3, 4, 5, 6, 7] }, 5],
    [{ $bitsAllSet: 54, $bitsAllClear: 201 }, 1],
  ]),
  ...counts('longs', longs, [
    [{ $bitsAllSet: 0 }, 5], [{ $bitsAllSet: 1 }, 2], [{ $bitsAllSet: long('9223372036854775807') }, 1],
    [{ $bitsAllSet: long('6917529027641081856') }, 2], [{ $bitsAllSet: long('2305843009213693952') }, 3],
    [{ $bitsAllClear: 0 }, 5], [{ $bitsAllClear: 1 }, 3], [{ $bitsAllClear: long('9223372036854775807') }, 1],
    [{ $bitsAllClear: long('6917529027641081856') }, 2], [{ $bitsAllClear: long('2305843009213693952') }, 2],
    [{ $bitsAnySet: 0 }, 0], [{ $bitsAnySet: 1 }, 2], [{ $bitsAnySet: long('9223372036854775807') }, 4],
    [{ $bitsAnySet: long('6917529027641081856') }, 3], [{ $bitsAnySet: long('2305843009213693952') }, 3],
    [{ $bitsAnyClear: 0 }, 0], [{ $bitsAnyClear: 1 }, 3], [{ $bitsAnyClear: long('9223372036854775807') }, 4],
    [{ $bitsAnyClear: long('6917529027641081856') }, 3], [{ $bitsAnyClear: long('2305843009213693952') }, 2],
  ]),
  ...counts('negatives', negatives, [
    [{ $bitsAllSet: 0 }, 4], [{ $bitsAllSet: 2 }, 2], [{ $bitsAllSet: 127 }, 1], [{ $bitsAllSet: 74 }, 2],
    [{ $bitsAllClear: 0 }, 4], [{ $bitsAllClear: 53 }, 3], [{ $bitsAllClear: 127 }, 2], [{ $bitsAnySet: 0 }, 0],
    [{ $bitsAnySet: 2 }, 2], [{ $bitsAnySet: 127 }, 2], [{ $bitsAnyClear: 0 }, 0], [{ $bitsAnyClear: 53 }, 3],
    [{ $bitsAnyClear: 127 }, 3], [{ $bitsAllSet: [] }, 4], [{ $bitsAllSet: [1] }, 2], [{ $bitsAllSet: allPositions }, 1],
    [{ $bitsAllSet: [1, 7, 6, 3, 100] }, 2], [{ $bitsAllClear: [] }, 4], [{ $bitsAllClear: [5, 4, 2, 0] }, 3],
    [{ $bitsAllClear: allPositions }, 1], [{ $bitsAnySet: [] }, 0], [{ $bitsAnySet: [1] }, 2],
    [{ $bitsAnySet: allPositions }, 3], [{ $bitsAnyClear: [] }, 0], [{ $bitsAnyClear: [0, 2, 4, 5, 100] }, 3],
    [{ $bitsAnyClear: allPositions }, 3], [{ $bitsAllSet: 74, $bitsAllClear: 53 }, 1],
  ]),
  ...counts('binaries', binaries, [
    [{ $bitsAllSet: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 4], [{ $bitsAllSet: bin('AANgAAAAAAAAAAAAAAAAAAAAAAAA') }, 3],
    [{ $bitsAllSet: bin('JANgqwetkqwklEWRbWERKKJREtbq') }, 2], [{ $bitsAllSet: bin('////////////////////////////') }, 1],
    [{ $bitsAllClear: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 4], [{ $bitsAllClear: bin('AAyfAAAAAAAAAAAAAAAAAAAAAAAA') }, 3],
    [{ $bitsAllClear: bin('JAyfqwetkqwklEWRbWERKKJREtbq') }, 2], [{ $bitsAllClear: bin('////////////////////////////') }, 1],
    [{ $bitsAnySet: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 0], [{ $bitsAnySet: bin('AAyfAAAAAAAAAAAAAAAAAAAAAAAA') }, 1],
    [{ $bitsAnySet: bin('JAyfqwetkqwklEWRbWERKKJREtbq') }, 2], [{ $bitsAnySet: bin('////////////////////////////') }, 3],
    [{ $bitsAnyClear: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 0], [{ $bitsAnyClear: bin('AANgAAAAAAAAAAAAAAAAAAAAAAAA') }, 1],
    [{ $bitsAnyClear: bin('JANgqwetkqwklEWRbWERKKJREtbq') }, 2], [{ $bitsAnyClear: bin('////////////////////////////') }, 3],
    [{ $bitsAllSet: bin('AANgAAAAAAAAAAAAAAAAAAAAAAAA'), $bitsAllClear: bin('//yf////////////////////////') }, 1],
  ]),
  ...counts('non-integral values', filtered, [
    [{ $bitsAllSet: 0 }, 5], [{ $bitsAllSet: 1 }, 2], [{ $bitsAllSet: 16 }, 3], [{ $bitsAllSet: 54 }, 2],
    [{ $bitsAllSet: 55 }, 1], [{ $bitsAllSet: 88 }, 2], [{ $bitsAllSet: 255 }, 1], [{ $bitsAllClear: 0 }, 5],
    [{ $bitsAllClear: 1 }, 3], [{ $bitsAllClear: 16 }, 2], [{ $bitsAllClear: 129 }, 3], [{ $bitsAllClear: 255 }, 1],
    [{ $bitsAnySet: 0 }, 0], [{ $bitsAnySet: 9 }, 3], [{ $bitsAnySet: 255 }, 4], [{ $bitsAnyClear: 0 }, 0],
    [{ $bitsAnyClear: 18 }, 3], [{ $bitsAnyClear: 24 }, 3], [{ $bitsAnyClear: 255 }, 4],
  ]),
  ...counts('variable-length binaries', variableBinaries, [
    [{ $bitsAllSet: bin('ZG9n') }, 1], [{ $bitsAllSet: bin('JA4A8gAxqTwciCuF5GGzAA==') }, 2], [{ $bitsAllSet: bin('BAAAADEyMzQ=', 2) }, 1],
    [{ $bitsAllSet: bin('VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==') }, 1],
    [{ $bitsAllClear: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 5], [{ $bitsAllClear: bin('JA4A8gAxqTwciCuF5GGzAA==') }, 0],
    [{ $bitsAnySet: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 0], [{ $bitsAnySet: bin('JA4A8gAxqTwciCuF5GGzAA==') }, 5],
    [{ $bitsAnyClear: bin('AAAAAAAAAAAAAAAAAAAAAAAAAAAA') }, 0],
    [{ $bitsAnyClear: bin('VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==') }, 4],
  ]),
];
