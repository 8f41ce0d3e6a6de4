// A persistent (copy-on-write) B+ tree: the ordered map under the memory engine and under
// the write overlay.
//
// Why persistent: a tree that is never mutated once published is a snapshot for free. The
// memory engine's snapshot is just the root it read; a writer copies the nodes on its path
// and publishes a new root, so readers (and lazy scans suspended across awaits) never see a
// later write and never need a lock, a version chain or a re-seek. Old nodes are reclaimed by
// the JavaScript GC as soon as no snapshot references them.
//
// Why edit tokens: copying the path for every put would make a 1000-put transaction copy
// ~3000 nodes. Each node records the token of the editor that created it; an editor mutates
// its own nodes in place and copies everybody else's. Publishing a root means dropping the
// token (see `SortedMap.freeze`), after which those nodes are immutable too.
//
// Layout: leaves hold sorted keys and values. Branches hold children and `keys[i]` (i >= 1),
// a separator that is <= every key in children[i] and > every key in children[i - 1];
// `keys[0]` is a placeholder that searches never read. Branches cache their subtree size so
// that `count` is O(1).

/** Opaque identity of one editor. */
export type EditToken = object;

export function newEditToken(): EditToken {
  return {};
}

export type Compare<K> = (a: K, b: K) => number;

interface Leaf<K, V> {
  readonly leaf: true;
  readonly owner: EditToken | null;
  keys: K[];
  values: V[];
}

interface Branch<K, V> {
  readonly leaf: false;
  readonly owner: EditToken | null;
  keys: K[];
  children: TreeNode<K, V>[];
  size: number;
}

export type TreeNode<K, V> = Leaf<K, V> | Branch<K, V>;

/** Widest node; 64 keeps nodes within a few cache lines of pointers and trees shallow. */
const widthMax = 64;
/** A node narrower than this is merged with or refilled from a sibling. */
const widthMin = 16;

const emptyLeaf: Leaf<never, never> = { leaf: true, owner: null, keys: [], values: [] };

/** The empty tree. Shared and owned by nobody, so no editor ever mutates it. */
export function emptyTree<K, V>(): TreeNode<K, V> {
  return emptyLeaf;
}

export function treeSize<K, V>(node: TreeNode<K, V>): number {
  return node.leaf ? node.keys.length : node.size;
}

function width<K, V>(node: TreeNode<K, V>): number {
  return node.keys.length;
}

/** Index of `key` in `keys`, or -(insertion point) - 1. */
function search<K>(keys: readonly K[], key: K, cmp: Compare<K>): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(keys[mid] as K, key);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

/** First index whose key is >= key (inclusive) or > key (exclusive). */
function lowerIndex<K>(keys: readonly K[], key: K, cmp: Compare<K>, inclusive: boolean): number {
  const i = search(keys, key, cmp);
  if (i >= 0) return inclusive ? i : i + 1;
  return -i - 1;
}

/** The child of `node` whose key range holds `key`. */
function childIndex<K, V>(node: Branch<K, V>, key: K, cmp: Compare<K>): number {
  // First separator > key, among keys[1..]; the child before it holds the key.
  let lo = 1;
  let hi = node.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(node.keys[mid] as K, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export function treeGet<K, V>(root: TreeNode<K, V>, key: K, cmp: Compare<K>): V | undefined {
  let node = root;
  while (!node.leaf) node = node.children[childIndex(node, key, cmp)] as TreeNode<K, V>;
  const i = search(node.keys, key, cmp);
  return i >= 0 ? node.values[i] : undefined;
}

/** What an edit found: the previous value of the key, if it had one. */
export interface EditResult<V> {
  found: boolean;
  prev: V | undefined;
}

interface EditCtx<K, V> extends EditResult<V> {
  readonly cmp: Compare<K>;
  readonly token: EditToken;
}

function writableLeaf<K, V>(n: Leaf<K, V>, token: EditToken): Leaf<K, V> {
  return n.owner === token
    ? n
    : { leaf: true, owner: token, keys: n.keys.slice(), values: n.values.slice() };
}

function writableBranch<K, V>(n: Branch<K, V>, token: EditToken): Branch<K, V> {
  return n.owner === token
    ? n
    : {
        leaf: false,
        owner: token,
        keys: n.keys.slice(),
        children: n.children.slice(),
        size: n.size,
      };
}

function writable<K, V>(n: TreeNode<K, V>, token: EditToken): TreeNode<K, V> {
  return n.leaf ? writableLeaf(n, token) : writableBranch(n, token);
}

function sumSizes<K, V>(children: readonly TreeNode<K, V>[]): number {
  let s = 0;
  for (const c of children) s += treeSize(c);
  return s;
}

/** Split the over-wide child `i` of `parent` (both owned by `token`) into two siblings. */
function splitChild<K, V>(parent: Branch<K, V>, i: number, token: EditToken): void {
  const child = parent.children[i] as TreeNode<K, V>;
  const m = width(child) >>> 1;
  let right: TreeNode<K, V>;
  if (child.leaf) {
    right = {
      leaf: true,
      owner: token,
      keys: child.keys.splice(m),
      values: child.values.splice(m),
    };
  } else {
    const children = child.children.splice(m);
    const size = sumSizes(children);
    right = { leaf: false, owner: token, keys: child.keys.splice(m), children, size };
    child.size -= size;
  }
  parent.children.splice(i + 1, 0, right);
  parent.keys.splice(i + 1, 0, right.keys[0] as K);
}

function setIn<K, V>(node: TreeNode<K, V>, key: K, value: V, ctx: EditCtx<K, V>): TreeNode<K, V> {
  if (node.leaf) {
    const i = search(node.keys, key, ctx.cmp);
    const w = writableLeaf(node, ctx.token);
    if (i >= 0) {
      ctx.found = true;
      ctx.prev = w.values[i];
      w.values[i] = value;
    } else {
      const p = -i - 1;
      w.keys.splice(p, 0, key);
      w.values.splice(p, 0, value);
    }
    return w;
  }
  const i = childIndex(node, key, ctx.cmp);
  const child = setIn(node.children[i] as TreeNode<K, V>, key, value, ctx);
  const w = writableBranch(node, ctx.token);
  w.children[i] = child;
  if (!ctx.found) w.size++;
  if (width(child) > widthMax) splitChild(w, i, ctx.token);
  return w;
}

/** Insert or replace; returns the new root (the old root is untouched unless owned by `token`). */
export function treeSet<K, V>(
  root: TreeNode<K, V>,
  key: K,
  value: V,
  cmp: Compare<K>,
  token: EditToken,
  result?: EditResult<V>,
): TreeNode<K, V> {
  const ctx: EditCtx<K, V> = { cmp, token, found: false, prev: undefined };
  let r = setIn(root, key, value, ctx);
  if (width(r) > widthMax) {
    const top: Branch<K, V> = {
      leaf: false,
      owner: token,
      keys: [r.keys[0] as K],
      children: [r],
      size: treeSize(r),
    };
    splitChild(top, 0, token);
    r = top;
  }
  if (result !== undefined) {
    result.found = ctx.found;
    result.prev = ctx.prev;
  }
  return r;
}

/** Merge the under-wide child `i` of `parent` with a sibling, or even the two out. */
function rebalance<K, V>(parent: Branch<K, V>, i: number, token: EditToken): void {
  const li = i > 0 ? i - 1 : i;
  const left = writable(parent.children[li] as TreeNode<K, V>, token);
  const right = writable(parent.children[li + 1] as TreeNode<K, V>, token);
  let keys: K[];
  let values: V[] | undefined;
  let children: TreeNode<K, V>[] | undefined;
  if (left.leaf && right.leaf) {
    keys = left.keys.concat(right.keys);
    values = left.values.concat(right.values);
  } else if (!left.leaf && !right.leaf) {
    // Right's placeholder keys[0] gives way to the parent's separator, which is valid there.
    keys = left.keys.concat([parent.keys[li + 1] as K], right.keys.slice(1));
    children = left.children.concat(right.children);
  } else {
    throw new Error('btree: siblings at different depths');
  }
  if (keys.length <= widthMax) {
    if (left.leaf && values !== undefined) {
      left.keys = keys;
      left.values = values;
    } else if (!left.leaf && children !== undefined) {
      left.keys = keys;
      left.children = children;
      left.size = sumSizes(children);
    }
    parent.children[li] = left;
    parent.children.splice(li + 1, 1);
    parent.keys.splice(li + 1, 1);
    return;
  }
  const half = keys.length >>> 1;
  left.keys = keys.slice(0, half);
  right.keys = keys.slice(half);
  if (left.leaf && right.leaf && values !== undefined) {
    left.values = values.slice(0, half);
    right.values = values.slice(half);
  } else if (!left.leaf && !right.leaf && children !== undefined) {
    left.children = children.slice(0, half);
    right.children = children.slice(half);
    left.size = sumSizes(left.children);
    right.size = sumSizes(right.children);
  }
  parent.children[li] = left;
  parent.children[li + 1] = right;
  parent.keys[li + 1] = right.keys[0] as K;
}

function deleteIn<K, V>(node: TreeNode<K, V>, key: K, ctx: EditCtx<K, V>): TreeNode<K, V> {
  if (node.leaf) {
    const i = search(node.keys, key, ctx.cmp);
    if (i < 0) return node;
    const w = writableLeaf(node, ctx.token);
    ctx.found = true;
    ctx.prev = w.values[i];
    w.keys.splice(i, 1);
    w.values.splice(i, 1);
    return w;
  }
  const i = childIndex(node, key, ctx.cmp);
  const child = deleteIn(node.children[i] as TreeNode<K, V>, key, ctx);
  if (!ctx.found) return node;
  const w = writableBranch(node, ctx.token);
  w.children[i] = child;
  w.size--;
  if (width(child) < widthMin && w.children.length > 1) rebalance(w, i, ctx.token);
  return w;
}

/** Remove `key`; returns the new root, or `root` itself when the key was absent. */
export function treeDelete<K, V>(
  root: TreeNode<K, V>,
  key: K,
  cmp: Compare<K>,
  token: EditToken,
  result?: EditResult<V>,
): TreeNode<K, V> {
  const ctx: EditCtx<K, V> = { cmp, token, found: false, prev: undefined };
  let r = deleteIn(root, key, ctx);
  if (!r.leaf && r.children.length === 1) r = r.children[0] as TreeNode<K, V>;
  if (result !== undefined) {
    result.found = ctx.found;
    result.prev = ctx.prev;
  }
  return r;
}

export interface Bounds<K> {
  readonly lo: K | undefined;
  readonly loInclusive: boolean;
  readonly hi: K | undefined;
  readonly hiInclusive: boolean;
  readonly reverse: boolean;
}

/**
 * Iterates a range of one immutable root, forward or backward. A class rather than a
 * generator: scans are the hot loop of every query, and `next()` here allocates nothing.
 */
export class TreeCursor<K, V> {
  /** Valid after `next()` returned true. */
  key: K | undefined = undefined;
  value: V | undefined = undefined;
  private readonly path: Branch<K, V>[] = [];
  private readonly pathIndex: number[] = [];
  private leaf: Leaf<K, V> | undefined;
  private pos = 0;

  constructor(
    root: TreeNode<K, V>,
    private readonly cmp: Compare<K>,
    private readonly bounds: Bounds<K>,
  ) {
    let node = root;
    const { lo, hi, reverse } = bounds;
    while (!node.leaf) {
      let i: number;
      if (reverse) i = hi === undefined ? node.children.length - 1 : childIndex(node, hi, cmp);
      else i = lo === undefined ? 0 : childIndex(node, lo, cmp);
      this.path.push(node);
      this.pathIndex.push(i);
      node = node.children[i] as TreeNode<K, V>;
    }
    this.leaf = node;
    if (reverse) {
      this.pos =
        hi === undefined
          ? node.keys.length - 1
          : lowerIndex(node.keys, hi, cmp, !bounds.hiInclusive) - 1;
    } else {
      this.pos = lo === undefined ? 0 : lowerIndex(node.keys, lo, cmp, bounds.loInclusive);
    }
  }

  next(): boolean {
    const leaf = this.bounds.reverse ? this.backwardLeaf() : this.forwardLeaf();
    if (leaf === undefined) return this.finish();
    const key = leaf.keys[this.pos] as K;
    const b = this.bounds;
    if (b.reverse) {
      if (b.lo !== undefined) {
        const c = this.cmp(key, b.lo);
        if (c < 0 || (c === 0 && !b.loInclusive)) return this.finish();
      }
      this.key = key;
      this.value = leaf.values[this.pos];
      this.pos--;
    } else {
      if (b.hi !== undefined) {
        const c = this.cmp(key, b.hi);
        if (c > 0 || (c === 0 && !b.hiInclusive)) return this.finish();
      }
      this.key = key;
      this.value = leaf.values[this.pos];
      this.pos++;
    }
    return true;
  }

  private finish(): false {
    this.leaf = undefined;
    this.key = undefined;
    this.value = undefined;
    return false;
  }

  /** The leaf holding the next entry forward (at `pos`), moving right as needed. */
  private forwardLeaf(): Leaf<K, V> | undefined {
    let leaf = this.leaf;
    while (leaf !== undefined && this.pos >= leaf.keys.length) {
      let depth = this.path.length - 1;
      while (
        depth >= 0 &&
        (this.pathIndex[depth] as number) + 1 >= (this.path[depth] as Branch<K, V>).children.length
      )
        depth--;
      if (depth < 0) return undefined;
      this.pathIndex[depth] = (this.pathIndex[depth] as number) + 1;
      let node = (this.path[depth] as Branch<K, V>).children[
        this.pathIndex[depth] as number
      ] as TreeNode<K, V>;
      this.path.length = depth + 1;
      this.pathIndex.length = depth + 1;
      while (!node.leaf) {
        this.path.push(node);
        this.pathIndex.push(0);
        node = node.children[0] as TreeNode<K, V>;
      }
      leaf = this.leaf = node;
      this.pos = 0;
    }
    return leaf;
  }

  /** The leaf holding the next entry backward (at `pos`), moving left as needed. */
  private backwardLeaf(): Leaf<K, V> | undefined {
    let leaf = this.leaf;
    while (leaf !== undefined && this.pos < 0) {
      let depth = this.path.length - 1;
      while (depth >= 0 && (this.pathIndex[depth] as number) === 0) depth--;
      if (depth < 0) return undefined;
      this.pathIndex[depth] = (this.pathIndex[depth] as number) - 1;
      let node = (this.path[depth] as Branch<K, V>).children[
        this.pathIndex[depth] as number
      ] as TreeNode<K, V>;
      this.path.length = depth + 1;
      this.pathIndex.length = depth + 1;
      while (!node.leaf) {
        this.path.push(node);
        this.pathIndex.push(node.children.length - 1);
        node = node.children[node.children.length - 1] as TreeNode<K, V>;
      }
      leaf = this.leaf = node;
      this.pos = node.keys.length - 1;
    }
    return leaf;
  }
}

/**
 * A mutable handle on a persistent tree: edits go in place into nodes this handle created,
 * and `freeze()` hands out the current root as an immutable value (later edits copy).
 */
export class SortedMap<K, V> {
  private token: EditToken = newEditToken();

  constructor(
    private readonly cmp: Compare<K>,
    private root: TreeNode<K, V> = emptyTree<K, V>(),
  ) {}

  get size(): number {
    return treeSize(this.root);
  }

  get(key: K): V | undefined {
    return treeGet(this.root, key, this.cmp);
  }

  set(key: K, value: V, result?: EditResult<V>): void {
    this.root = treeSet(this.root, key, value, this.cmp, this.token, result);
  }

  delete(key: K, result?: EditResult<V>): void {
    this.root = treeDelete(this.root, key, this.cmp, this.token, result);
  }

  clear(): void {
    this.root = emptyTree<K, V>();
  }

  /** The current contents as an immutable root; this handle copies on its next edit. */
  freeze(): TreeNode<K, V> {
    this.token = newEditToken();
    return this.root;
  }

  /** A cursor over the contents as of now, unaffected by later edits through this handle. */
  cursor(bounds: Bounds<K>): TreeCursor<K, V> {
    return new TreeCursor(this.freeze(), this.cmp, bounds);
  }
}
