// File names of a dump directory, as mongodump makes them: a collection's name is escaped the
// way Go's url.QueryEscape escapes a query component (letters, digits and "-_.~" stay, a space
// becomes "+", every other byte "%XX"), and a name that would make a file name longer than
// 255 bytes is cut to 208 bytes followed by "%24" and the unpadded base64url SHA-1 of the
// whole name (the full name is then read from the metadata's collectionName).

import { createHash } from 'node:crypto';
import { ToolError } from './tool-error.js';

function unreserved(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x2d || // -
    byte === 0x5f || // _
    byte === 0x2e || // .
    byte === 0x7e // ~
  );
}

/** Go's url.QueryEscape. */
export function queryEscape(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    if (unreserved(byte)) out += String.fromCharCode(byte);
    else if (byte === 0x20) out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url.QueryUnescape: "+" is a space, "%XX" a byte; a malformed escape is an error. */
export function queryUnescape(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '+') bytes.push(0x20);
    else if (c === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        throw new ToolError(`invalid URL escape "%${hex}" in file name ${JSON.stringify(text)}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const escapedNameBytesMax = 238;
const truncatedNameBytes = 208;

/** The file name stem (without .bson / .metadata.json) mongodump gives a collection. */
export function collectionFileStem(collection: string): string {
  const escaped = queryEscape(collection);
  if (escaped.length <= escapedNameBytesMax) return escaped;
  const hash = createHash('sha1').update(collection, 'utf8').digest('base64url');
  return `${escaped.slice(0, truncatedNameBytes)}%24${hash}`;
}

/** Whether a file name stem is a truncated one, whose collection name is in its metadata. */
export function isTruncatedStem(stem: string): boolean {
  return stem.includes('%24') && stem.length === escapedNameBytesMax;
}
