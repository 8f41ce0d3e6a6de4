// mongod's FieldPath validation (src/mongo/db/pipeline/field_path.cpp), shared by projection and
// sort specifications: no empty path, no trailing dot, no empty component, no component
// starting with '$' (except the DBRef fields) and no NUL.

import { ErrorCode, fail } from '../../errors.js';

const ALLOWED_DOLLAR_FIELDS = new Set(['$id', '$ref', '$db']);

export function validateFieldPath(path: string): string[] {
  if (path.length === 0)
    fail(ErrorCode.Location40352, 'FieldPath cannot be constructed with empty string');
  if (path.endsWith('.')) fail(ErrorCode.Location40353, "FieldPath must not end with a '.'.");
  const parts = path.split('.');
  for (const part of parts) {
    if (part.length === 0)
      fail(ErrorCode.Location15998, 'FieldPath field names may not be empty strings.');
    if (part.startsWith('$') && !ALLOWED_DOLLAR_FIELDS.has(part)) {
      fail(
        ErrorCode.Location16410,
        "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
      );
    }
    if (part.includes('\0'))
      fail(ErrorCode.Location16411, "FieldPath field names may not contain '\\0'.");
  }
  return parts;
}
