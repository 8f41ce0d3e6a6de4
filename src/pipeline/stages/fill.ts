// $fill: fills null and missing fields — with a value (an expression per document), with the
// last non-null value in sort order ("locf"), or by linear interpolation ("linear"). As in
// mongod, it is rewritten at parse time into $setWindowFields ($locf / $linearFill) and
// $addFields ($ifNull).

import { setOwn } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { typeName } from '../values.js';
import { $addFields } from './add-fields.js';
import { $setWindowFields } from './set-window-fields.js';
import type { PipelineContext, Stage, StageDefinition } from './types.js';

export const $fill: StageDefinition = {
  name: '$fill',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.FailedToParse,
        `The $fill stage specification must be an object, found ${typeName(arg)}`,
      );
    let partitionBy: BsonValue | undefined;
    let partitionByFields: BsonValue[] | undefined;
    let sortBy: BsonDocument | undefined;
    let output: BsonDocument | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'partitionBy') partitionBy = v;
      else if (k === 'partitionByFields') {
        if (!isArray(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$fill.partitionByFields' is the wrong type '${typeName(v)}', expected type 'array'`,
          );
        partitionByFields = v;
      } else if (k === 'sortBy') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$fill.sortBy' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        sortBy = v;
      } else if (k === 'output') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$fill.output' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        output = v;
      } else fail(ErrorCode.Location40415, `BSON field '$fill.${k}' is an unknown field.`);
    }
    if (output === undefined) throw missingFieldError('$fill.output');
    // Codes from jstests/aggregation/sources/fill/fill_parse.js.
    if (Object.keys(output).length === 0)
      fail(ErrorCode.Location6050203, "$fill 'output' field must contain at least one item");
    if (partitionBy !== undefined && partitionByFields !== undefined)
      fail(
        ErrorCode.Location6050204,
        "Only one of 'partitionBy' and 'partitionByFields' can be specified for '$fill'",
      );
    const windowOutput: BsonDocument = {};
    const valueOutput: BsonDocument = {};
    for (const [field, spec] of Object.entries(output)) {
      if (!isPlainDocument(spec))
        fail(
          ErrorCode.Location6050200,
          `All output fields of $fill must be specified as objects, '${field}' is a ${typeName(spec)}`,
        );
      const keys = Object.keys(spec);
      for (const k of keys)
        if (k !== 'value' && k !== 'method')
          fail(
            ErrorCode.Location40415,
            `BSON field '$fill.output.${field}.${k}' is an unknown field.`,
          );
      if (keys.length !== 1 || (keys[0] !== 'value' && keys[0] !== 'method'))
        fail(
          ErrorCode.FailedToParse,
          "Exactly one of 'value' and 'method' must be specified for each output field of $fill",
        );
      if (keys[0] === 'value') {
        setOwn(valueOutput, field, { $ifNull: [`$${field}`, spec['value'] ?? null] });
      } else {
        const method = spec['method'];
        if (method === 'locf') setOwn(windowOutput, field, { $locf: `$${field}` });
        else if (method === 'linear') {
          if (sortBy === undefined)
            fail(ErrorCode.Location605001, "'sortBy' is required for $fill with method 'linear'");
          setOwn(windowOutput, field, { $linearFill: `$${field}` });
        } else
          fail(
            ErrorCode.Location6050202,
            `Method must be either 'locf' or 'linear', found ${String(method)}`,
          );
      }
    }
    const stages: Stage[] = [];
    if (Object.keys(windowOutput).length > 0) {
      // Field names of an object expression cannot hold dots: key the partition by position.
      const partition =
        partitionByFields !== undefined
          ? Object.fromEntries(partitionByFields.map((f, i) => [`f${i}`, `$${String(f)}`]))
          : partitionBy;
      const spec: BsonDocument = { output: windowOutput };
      if (partition !== undefined) spec['partitionBy'] = partition;
      if (sortBy !== undefined) spec['sortBy'] = sortBy;
      stages.push(...[$setWindowFields.parse(spec, ctx)].flat());
    }
    if (Object.keys(valueOutput).length > 0)
      stages.push(...[$addFields.parse(valueOutput, ctx)].flat());
    return stages;
  },
};
