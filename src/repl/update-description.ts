// An update event's updateDescription, read from the `$v: 2` diff of its oplog entry (mongod's
// change_stream_document_diff_parser): updatedFields and removedFields as dotted paths,
// truncatedArrays, and disambiguatedPaths for the paths a dotted string cannot describe
// unambiguously.
//
// A path is ambiguous from its first component that is a field name made of digits (below the
// top level: a top-level numeric name cannot be an array index) or a field name containing a
// dot; an array index alone does not make it ambiguous. disambiguatedPaths maps each ambiguous
// dotted path to its components, array indexes as integers.
//
// Entries written before the diff was nested (flat `u`/`d` sections with dotted paths) read
// as before: their dotted keys are taken as they are (so with showExpandedEvents, a nested path
// of such an entry is listed in disambiguatedPaths as if it were one dotted field name).

import { Int32 } from 'bson';
import { setOwn } from '../bson/document.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';

export interface UpdateDescription {
  readonly updatedFields: BsonDocument;
  readonly removedFields: string[];
  readonly truncatedArrays: BsonDocument[];
  readonly disambiguatedPaths: BsonDocument;
}

interface PathPart {
  readonly name: string;
  readonly isIndex: boolean;
  readonly ambiguous: boolean;
}

/** mongod's FieldRef::isNumericPathComponentStrict: digits, no leading zero (except "0"). */
function isStrictNumeric(s: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(s);
}

class DescriptionBuilder {
  private readonly path: PathPart[] = [];
  readonly out: UpdateDescription = {
    updatedFields: {},
    removedFields: [],
    truncatedArrays: [],
    disambiguatedPaths: {},
  };

  push(name: string, isIndex: boolean): void {
    const prev = this.path[this.path.length - 1];
    let ambiguous = prev?.ambiguous === true;
    if (!ambiguous && !isIndex) {
      const numeric = this.path.length > 0 && isStrictNumeric(name);
      ambiguous = numeric || name.includes('.');
    }
    this.path.push({ name, isIndex, ambiguous });
  }

  pop(): void {
    this.path.pop();
  }

  private dotted(): string {
    return this.path.map((p) => p.name).join('.');
  }

  /** Record the current path in disambiguatedPaths if it is ambiguous. */
  private noteAmbiguity(): void {
    if (this.path[this.path.length - 1]?.ambiguous !== true) return;
    setOwn(
      this.out.disambiguatedPaths,
      this.dotted(),
      this.path.map((p) => (p.isIndex ? new Int32(Number(p.name)) : p.name)),
    );
  }

  updated(name: string, isIndex: boolean, value: BsonValue): void {
    this.push(name, isIndex);
    setOwn(this.out.updatedFields, this.dotted(), value);
    this.noteAmbiguity();
    this.pop();
  }

  removed(name: string): void {
    this.push(name, false);
    this.out.removedFields.push(this.dotted());
    this.noteAmbiguity();
    this.pop();
  }

  truncated(newSize: BsonValue): void {
    this.out.truncatedArrays.push({ field: this.dotted(), newSize });
    this.noteAmbiguity();
  }
}

function readDocumentDiff(diff: BsonDocument, b: DescriptionBuilder): void {
  // mongod's reader order: updates, inserts, deletes, then sub-diffs.
  for (const section of ['u', 'i'] as const) {
    const s = diff[section];
    if (isPlainDocument(s))
      for (const [name, value] of Object.entries(s)) b.updated(name, false, value);
  }
  const d = diff['d'];
  if (isPlainDocument(d)) for (const name of Object.keys(d)) b.removed(name);
  for (const [key, sub] of Object.entries(diff)) {
    if (key.length < 2 || key[0] !== 's' || !isPlainDocument(sub)) continue;
    b.push(key.slice(1), false);
    readSubDiff(sub, b);
    b.pop();
  }
  // Entries written before the diff was nested listed truncations as `t: [{field, newSize}]`.
  const legacy = diff['t'];
  if (isArray(legacy))
    for (const t of legacy) if (isPlainDocument(t)) b.out.truncatedArrays.push(t);
}

function readArrayDiff(diff: BsonDocument, b: DescriptionBuilder): void {
  if (diff['l'] !== undefined) b.truncated(diff['l']);
  for (const [key, value] of Object.entries(diff)) {
    const idx = key.slice(1);
    if (!/^[0-9]+$/.test(idx)) continue;
    if (key[0] === 'u') {
      b.updated(idx, true, value);
    } else if (key[0] === 's' && isPlainDocument(value)) {
      b.push(idx, true);
      readSubDiff(value, b);
      b.pop();
    }
  }
}

function readSubDiff(diff: BsonDocument, b: DescriptionBuilder): void {
  if (diff['a'] === true) readArrayDiff(diff, b);
  else readDocumentDiff(diff, b);
}

/** The updateDescription of an update event whose oplog entry carries `diff`. */
export function describeDiff(diff: BsonDocument): UpdateDescription {
  const b = new DescriptionBuilder();
  readDocumentDiff(diff, b);
  return b.out;
}
