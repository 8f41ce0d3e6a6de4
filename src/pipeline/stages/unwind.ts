// $unwind: one output document per element of an array field. Options: includeArrayIndex (a
// field receiving the element's index, null for non-arrays), preserveNullAndEmptyArrays
// (documents with a missing, null or empty-array field pass through). A non-array value is
// treated as a one-element array.

import { withValueAt } from '../../bson/document.js';
import { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { parseFieldPath } from '../expressions/field-path.js';
import { getPathValue } from '../../bson/path.js';
import { MISSING } from '../expressions/types.js';
import { typeName } from '../values.js';
import { FlatMapStage } from './base.js';
import type { Stage, StageDefinition } from './types.js';

/** A copy of `doc` with the value at `parts` replaced (the path is known to reach documents). */
function replacedAt(
  doc: BsonDocument,
  parts: readonly string[],
  i: number,
  value: BsonValue | typeof MISSING,
): BsonDocument {
  const out: BsonDocument = { ...doc };
  const name = parts[i] as string;
  if (i === parts.length - 1) {
    if (value === MISSING) delete out[name];
    else
      Object.defineProperty(out, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  const sub = out[name];
  if (isPlainDocument(sub))
    Object.defineProperty(out, name, {
      value: replacedAt(sub, parts, i + 1, value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

function withIndex(doc: BsonDocument, field: string | undefined, index: BsonValue): BsonDocument {
  if (field === undefined) return doc;
  const parts = field.split('.');
  return withValueAt(doc, parts, index);
}

class UnwindStage implements Stage {
  readonly name = '$unwind';
  constructor(
    private readonly path: string,
    private readonly indexField: string | undefined,
    private readonly preserve: boolean,
  ) {}
  serialize(): BsonDocument {
    return {
      $unwind: {
        path: `$${this.path}`,
        ...(this.preserve ? { preserveNullAndEmptyArrays: true } : {}),
        ...(this.indexField === undefined ? {} : { includeArrayIndex: this.indexField }),
      },
    };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    const parts = this.path.split('.');
    return new FlatMapStage('$unwind', input, (doc) => {
      const v = getPathValue(doc, parts);
      // A path through arrays does not reach a single value: mongod's Document::getNestedField.
      if (isArray(v)) {
        if (v.length === 0)
          return this.preserve
            ? [withIndex(replacedAt(doc, parts, 0, MISSING), this.indexField, null)]
            : [];
        return {
          length: v.length,
          at: (i: number) =>
            withIndex(
              replacedAt(doc, parts, 0, v[i] as BsonValue),
              this.indexField,
              Long.fromNumber(i),
            ),
        };
      }
      if (v === MISSING || v === null || v === undefined) {
        return this.preserve ? [withIndex(doc, this.indexField, null)] : [];
      }
      return [withIndex(doc, this.indexField, null)];
    });
  }
}

export const $unwind: StageDefinition = {
  name: '$unwind',
  parse(arg) {
    let path: BsonValue | undefined;
    let indexField: string | undefined;
    let preserve = false;
    if (typeof arg === 'string') {
      path = arg;
    } else if (isPlainDocument(arg)) {
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'path') {
          if (typeof v !== 'string')
            fail(
              ErrorCode.Location28808,
              `expected a string as the path for $unwind stage, got ${typeName(v)}`,
            );
          path = v;
        } else if (k === 'preserveNullAndEmptyArrays') {
          if (typeof v !== 'boolean')
            fail(
              ErrorCode.Location28809,
              `expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got ${typeName(v)}`,
            );
          preserve = v;
        } else if (k === 'includeArrayIndex') {
          if (typeof v !== 'string')
            fail(
              ErrorCode.Location28810,
              `expected a non-empty string for the includeArrayIndex option to $unwind stage, got ${typeName(v)}`,
            );
          if (v.length === 0)
            fail(
              ErrorCode.Location28810,
              'expected a non-empty string for the includeArrayIndex option to $unwind stage, got string',
            );
          if (v.startsWith('$'))
            fail(
              ErrorCode.Location28822,
              `includeArrayIndex option to $unwind stage should not be prefixed with a '$': ${v}`,
            );
          parseFieldPath(v);
          indexField = v;
        } else {
          fail(ErrorCode.Location28811, `unrecognized option to $unwind stage: ${k}`);
        }
      }
      if (path === undefined) fail(ErrorCode.Location28812, 'no path specified to $unwind stage');
    } else {
      fail(
        ErrorCode.Location15981,
        `expected either a string or an object as specification for $unwind stage, got ${typeName(arg)}`,
      );
    }
    const p = path as string;
    if (!p.startsWith('$'))
      fail(
        ErrorCode.Location28818,
        `path option to $unwind stage should be prefixed with a '$': ${p}`,
      );
    const fieldPath = p.slice(1);
    parseFieldPath(fieldPath);
    return new UnwindStage(fieldPath, indexField, preserve);
  },
};
