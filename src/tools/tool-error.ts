// The one error type of secantus-dump and secantus-restore: a message for the person running
// the tool, printed as mongodump and mongorestore print theirs ("Failed: <message>"), and a
// non-zero exit. The driver's errors become ToolErrors where they are caught with context;
// anything else thrown is a bug and is printed with its stack.

import { MongoError } from 'mongodb';

export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Prefixes a ToolError's message with where it happened; other errors pass through. */
export function withContext(e: unknown, context: string): unknown {
  if (e instanceof ToolError) return new ToolError(`${context}: ${e.message}`);
  if (e instanceof MongoError) return new ToolError(`${context}: ${e.message}`);
  return e;
}
