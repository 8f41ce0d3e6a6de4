import type { PathOperator, TopLevelOperator } from '../registry.js';
import { $comment } from './comment.js';
import { $expr } from './expr.js';
import { $jsonSchema } from './json-schema.js';
import { $mod } from './mod.js';
import { $options } from './options.js';
import { $regex } from './regex.js';
import { $text } from './text.js';
import { $where } from './where.js';

export const evaluationPathOperators: readonly PathOperator[] = [$mod, $regex, $options];
export const evaluationTopLevelOperators: readonly TopLevelOperator[] = [
  $expr,
  $jsonSchema,
  $where,
  $text,
  $comment,
];
