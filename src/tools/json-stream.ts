// Splits mongoimport's JSON input into documents: concatenated JSON objects (one a line, or
// any whitespace between them), or with --jsonArray one JSON array of them. The split only
// tracks braces and strings; each piece is then parsed (ejson-text.ts), which finds syntax
// errors. Positions are 1-based document numbers and lines, as the errors report them.

import { limits } from '../limits.js';
import { JsonSyntaxError, lineAndColumn } from './ejson-text.js';
import { ToolError } from './tool-error.js';

export interface JsonPiece {
  /** The text of one document. */
  readonly text: string;
  /** 1-based number of the document in the input. */
  readonly number: number;
  /** 1-based line where it starts. */
  readonly line: number;
}

/** A failure tied to a document of the input. */
export class InputError extends ToolError {}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export async function* jsonPieces(
  input: AsyncIterable<unknown>,
  array: boolean,
): AsyncGenerator<JsonPiece> {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
  let buf = '';
  let pos = 0; // next unread character of buf
  let line = 1; // line of buf[pos]
  let number = 0;
  let openedArray = false;
  let closedArray = false;
  let expectComma = false;
  // Scanning a document: where it started and the scanner's state at buf[scan].
  let start = -1;
  let startLine = 0;
  let scan = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;

  const advanceLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) if (buf.charCodeAt(i) === 0x0a) line++;
  };

  const syntaxError = (message: string, at: number): InputError => {
    number++;
    return new InputError(`error processing document #${number} (line ${at}): ${message}`);
  };

  /** Reads what buf holds; returns the pieces found. Throws on bad input. */
  const drain = function* (final: boolean): Generator<JsonPiece> {
    for (;;) {
      if (start < 0) {
        // between documents
        while (pos < buf.length && isSpace(buf.charCodeAt(pos))) {
          if (buf.charCodeAt(pos) === 0x0a) line++;
          pos++;
        }
        if (pos >= buf.length) {
          if (final && array && !closedArray)
            throw new InputError(
              openedArray
                ? "bad JSON array format - found no closing bracket ']' in input source"
                : "bad JSON array format - found no opening bracket '[' in input source",
            );
          return;
        }
        const ch = buf[pos] as string;
        if (array) {
          if (closedArray)
            throw new InputError(`bad JSON array format - found '${ch}' after ']' in input source`);
          if (!openedArray) {
            if (ch !== '[')
              throw new InputError(
                "bad JSON array format - found no opening bracket '[' in input source",
              );
            openedArray = true;
            pos++;
            continue;
          }
          if (ch === ']') {
            closedArray = true;
            pos++;
            continue;
          }
          if (expectComma) {
            if (ch !== ',')
              throw new InputError(
                `bad JSON array format - found '${ch}' outside JSON object/array in input source`,
              );
            expectComma = false;
            pos++;
            continue;
          }
        }
        if (ch !== '{') {
          const hint = ch === '[' && !array ? ' (the input is a JSON array: use --jsonArray)' : '';
          throw syntaxError(
            `invalid character '${ch}' looking for beginning of object${hint}`,
            line,
          );
        }
        start = pos;
        startLine = line;
        scan = pos;
        depth = 0;
        inString = false;
        escaped = false;
      }
      // inside a document: find its closing brace
      let end = -1;
      for (; scan < buf.length; scan++) {
        const c = buf.charCodeAt(scan);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
        } else if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) {
            end = scan + 1;
            break;
          }
        }
      }
      if (end < 0) {
        if (buf.length - start > limits.importRecordTextMax)
          throw syntaxError(
            `a document is at most ${limits.importRecordTextMax} characters of JSON`,
            startLine,
          );
        if (!final) return;
        // Unterminated: parsing it finds the first error and where it is.
        number++;
        yield { text: buf.slice(start), number, line: startLine };
        pos = buf.length;
        start = -1;
        return;
      }
      number++;
      const text = buf.slice(start, end);
      yield { text, number, line: startLine };
      advanceLines(start, end);
      pos = end;
      start = -1;
      expectComma = array;
      if (pos > 1 << 20) {
        buf = buf.slice(pos);
        pos = 0;
      }
    }
  };

  for await (const chunk of input) {
    const text =
      typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    if (start >= 0 && start > 0) {
      buf = buf.slice(start);
      scan -= start;
      pos -= start;
      start = 0;
    } else if (start < 0 && pos > 0) {
      buf = buf.slice(pos);
      pos = 0;
    }
    buf += text;
    yield* drain(false);
  }
  buf += decoder.decode();
  yield* drain(true);
}

/** Turns a parser error inside a piece into the error mongoimport prints, with the line. */
export function pieceError(piece: JsonPiece, e: unknown): InputError {
  if (e instanceof JsonSyntaxError) {
    const { line } = lineAndColumn(piece.text, e.offset);
    const at = piece.line + line - 1;
    return new InputError(`error processing document #${piece.number} (line ${at}): ${e.message}`);
  }
  const message = e instanceof Error ? e.message : String(e);
  return new InputError(
    `error processing document #${piece.number} (line ${piece.line}): ${message}`,
  );
}
