// mongod's `$v: 2` update diff: the `diff` of an update oplog entry, from which change streams
// derive updateDescription. It is built two ways, as in mongod:
// - from the paths a modifier update changed (mongod's V2LogBuilder): `DiffBuilder`;
// - by comparing the documents before and after a pipeline update (mongod's
//   doc_diff::computeOplogDiff): `computeDiff`.
//
// Format. A document diff has the sections `d: {field: false}` (removed), `u: {field: value}`
// (set), `i: {field: value}` (created) and `s<field>: <diff>` for a subdocument or array changed
// in place. An array diff has `a: true`, `l: <new length>` when the array was shortened, and
// `u<index>: value` or `s<index>: <diff>` per changed element. Nesting, rather than dotted
// paths, is what tells an array index from a field whose name is a number.

import { Int32 } from 'bson';
import { bsonSize } from '../bson/codec.js';
import { getOwn, setOwn } from '../bson/document.js';
import { asDocument, isArray } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import { binaryEqual } from './binary-equal.js';

/** A path component: a field name, or (a number) an array index. */
export type DiffPathPart = string | number;

type Leaf =
  | { readonly kind: 'u'; readonly value: BsonValue }
  | { readonly kind: 'i'; readonly value: BsonValue }
  | { readonly kind: 'd' };
interface DocNode {
  readonly kind: 'doc';
  readonly children: Map<string, DiffNode>;
}
interface ArrayNode {
  readonly kind: 'array';
  /** Keyed by the decimal index. */
  readonly children: Map<string, DiffNode>;
  resize?: number;
}
type DiffNode = Leaf | DocNode | ArrayNode;

const newDoc = (): DocNode => ({ kind: 'doc', children: new Map() });
const newArray = (): ArrayNode => ({ kind: 'array', children: new Map() });
const isInternal = (n: DiffNode): n is DocNode | ArrayNode =>
  n.kind === 'doc' || n.kind === 'array';

/** mongod's extra bytes for `$v` and `diff` around a diff, counted when choosing diff or replacement. */
export const diffEntryOverheadBytes = 15;

/**
 * Collects the changes of one update as a tree and writes the diff. A change below a path that
 * is already set is covered by it (the value logged there is the final subtree); a change at a
 * path replaces whatever was logged below it.
 */
export class DiffBuilder {
  private readonly root: DocNode = newDoc();

  /** The value at `path` was changed in place or replaced. */
  update(path: readonly DiffPathPart[], value: BsonValue): void {
    this.add(path, { kind: 'u', value });
  }

  /** `path` was created (its first missing component), holding `value`. */
  insert(path: readonly DiffPathPart[], value: BsonValue): void {
    this.add(path, { kind: 'i', value });
  }

  /** The field at `path` was removed. */
  delete(path: readonly DiffPathPart[]): void {
    this.add(path, { kind: 'd' });
  }

  private add(path: readonly DiffPathPart[], leaf: Leaf): void {
    if (path.length === 0) return;
    let node: DocNode | ArrayNode = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const key = String(path[i]);
      let child: DiffNode | undefined = node.children.get(key);
      if (child === undefined) {
        child = typeof path[i + 1] === 'number' ? newArray() : newDoc();
        node.children.set(key, child);
      } else if (!isInternal(child)) {
        return;
      }
      node = child;
    }
    const last = String(path[path.length - 1]);
    // Re-inserting keeps mongod's order: a replaced subtree is logged where it was replaced.
    node.children.delete(last);
    node.children.set(last, leaf);
  }

  serialize(): BsonDocument {
    return serializeDoc(this.root);
  }
}

function serializeDoc(node: DocNode): BsonDocument {
  const d: BsonDocument = {};
  const u: BsonDocument = {};
  const i: BsonDocument = {};
  const subs: Array<[string, DocNode | ArrayNode]> = [];
  for (const [name, child] of node.children) {
    if (child.kind === 'd') setOwn(d, name, false);
    else if (child.kind === 'u') setOwn(u, name, child.value);
    else if (child.kind === 'i') setOwn(i, name, child.value);
    else subs.push([name, child]);
  }
  const out: BsonDocument = {};
  if (Object.keys(d).length > 0) out['d'] = d;
  if (Object.keys(u).length > 0) out['u'] = u;
  if (Object.keys(i).length > 0) out['i'] = i;
  for (const [name, child] of subs) setOwn(out, `s${name}`, serializeNode(child));
  return out;
}

function serializeArray(node: ArrayNode): BsonDocument {
  const out: BsonDocument = { a: true };
  if (node.resize !== undefined) out['l'] = new Int32(node.resize);
  const indexes = [...node.children.keys()].sort((x, y) => Number(x) - Number(y));
  for (const idx of indexes) {
    const child = node.children.get(idx) as DiffNode;
    // An array diff has no insert or delete section: a created element is an update.
    if (child.kind === 'u' || child.kind === 'i') out[`u${idx}`] = child.value;
    else if (isInternal(child)) out[`s${idx}`] = serializeNode(child);
  }
  return out;
}

function serializeNode(node: DocNode | ArrayNode): BsonDocument {
  return node.kind === 'doc' ? serializeDoc(node) : serializeArray(node);
}

// ---- diffing two documents (pipeline updates) -------------------------------------------------

/** The BSON size of a value as an element's payload (a subdocument or array). */
function embeddedSize(v: BsonValue): number {
  // {"": v} is 4 (length) + 1 (type) + 1 (empty name) + payload + 1 (terminator).
  return bsonSize({ '': v }) - 7;
}

/** Subdocument or array, as the diff treats them (a DBRef is a subdocument). */
function containerOf(
  v: BsonValue,
):
  | { readonly kind: 'doc'; readonly doc: BsonDocument }
  | { readonly kind: 'array'; readonly arr: BsonArray }
  | undefined {
  if (isArray(v)) return { kind: 'array', arr: v };
  const doc = asDocument(v);
  return doc === undefined ? undefined : { kind: 'doc', doc };
}

/**
 * The diff of a changed subdocument or array, or undefined when it would not be smaller than
 * the new value itself (then the whole value is logged, as mongod does).
 */
function subDiff(pre: BsonValue, post: BsonValue): DocNode | ArrayNode | undefined {
  const a = containerOf(pre);
  const b = containerOf(post);
  let node: DocNode | ArrayNode;
  if (a?.kind === 'doc' && b?.kind === 'doc') node = docDiff(a.doc, b.doc);
  else if (a?.kind === 'array' && b?.kind === 'array') node = arrayDiff(a.arr, b.arr);
  else return undefined;
  return bsonSize(serializeNode(node)) < embeddedSize(post) ? node : undefined;
}

function changed(pre: BsonValue, post: BsonValue): DiffNode {
  return subDiff(pre, post) ?? { kind: 'u', value: post };
}

function docDiff(pre: BsonDocument, post: BsonDocument): DocNode {
  const node = newDoc();
  const preKeys = Object.keys(pre);
  const postKeys = Object.keys(post);
  // Fields whose position differs are removed here and re-created at the end (an insert
  // appends), as mongod's diff does; a field created later is taken out of this set.
  const moved = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < preKeys.length && j < postKeys.length) {
    const name = preKeys[i] as string;
    if (name === postKeys[j]) {
      const before = getOwn(pre, name) as BsonValue;
      const after = getOwn(post, name) as BsonValue;
      if (!binaryEqual(before, after)) node.children.set(name, changed(before, after));
      i++;
      j++;
    } else {
      moved.add(name);
      i++;
    }
  }
  for (; i < preKeys.length; i++) node.children.set(preKeys[i] as string, { kind: 'd' });
  for (; j < postKeys.length; j++) {
    const name = postKeys[j] as string;
    node.children.set(name, { kind: 'i', value: getOwn(post, name) as BsonValue });
    moved.delete(name);
  }
  for (const name of [...moved].sort()) node.children.set(name, { kind: 'd' });
  return node;
}

function arrayDiff(pre: BsonArray, post: BsonArray): ArrayNode {
  const node = newArray();
  const common = Math.min(pre.length, post.length);
  for (let k = 0; k < common; k++) {
    const before = pre[k] as BsonValue;
    const after = post[k] as BsonValue;
    if (!binaryEqual(before, after)) node.children.set(String(k), changed(before, after));
  }
  for (let k = common; k < post.length; k++)
    node.children.set(String(k), { kind: 'u', value: post[k] as BsonValue });
  if (pre.length > post.length) node.resize = post.length;
  return node;
}

/**
 * The diff that turns `pre` into `post`, or undefined when the diff (with the entry's own
 * overhead) would not be smaller than `post`: mongod then logs the update as a replacement,
 * and change streams report it as a `replace` event.
 */
export function computeDiff(pre: BsonDocument, post: BsonDocument): BsonDocument | undefined {
  const diff = serializeDoc(docDiff(pre, post));
  return bsonSize(diff) + diffEntryOverheadBytes < bsonSize(post) ? diff : undefined;
}
