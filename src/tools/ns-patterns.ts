// Namespace patterns of --nsInclude, --nsExclude, --nsFrom and --nsTo, with mongorestore's
// rules:
// - "*" matches any run of characters, dots included; "\*" is a literal asterisk and "\\" a
//   literal backslash (an asterisk right after a backslash is never a wildcard); a backslash
//   before any other character is dropped. Include and exclude patterns may not hold "$".
// - --nsFrom/--nsTo come in pairs, tried last pair first. Wildcards in a pair correspond by
//   position (so both need as many); or the pair names variables, "$name$", in which case
//   asterisks and backslashes are literal and every variable of --nsTo must appear in --nsFrom.

import { ToolError } from './tool-error.js';

type Token = { kind: 'literal'; text: string } | { kind: 'variable'; name: string };

/** Go's unescaping of patterns: "\\" → "\", "\*" → "*", any other "\" dropped. */
function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c !== '\\') out += c;
    else if (text[i + 1] === '\\' || text[i + 1] === '*') out += text[++i] as string;
  }
  return out;
}

/** Splits a pattern without "$" at its wildcards; wildcards become variables "1", "2", ... */
function wildcardTokens(pattern: string): Token[] {
  const tokens: Token[] = [];
  let literal = '';
  let n = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i - 1] !== '\\') {
      tokens.push({ kind: 'literal', text: unescape(literal) });
      tokens.push({ kind: 'variable', name: String(++n) });
      literal = '';
    } else literal += c;
  }
  tokens.push({ kind: 'literal', text: unescape(literal) });
  return tokens;
}

/** Splits a pattern with "$name$" variables; any other "$" is an error. */
function variableTokens(pattern: string): Token[] {
  const tokens: Token[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c !== '$') {
      literal += c;
      continue;
    }
    const close = pattern.indexOf('$', i + 1);
    if (close < 0) throw new ToolError(`Extraneous '$' in ${JSON.stringify(pattern)}`);
    tokens.push({ kind: 'literal', text: literal });
    tokens.push({ kind: 'variable', name: pattern.slice(i + 1, close) });
    literal = '';
    i = close;
  }
  tokens.push({ kind: 'literal', text: literal });
  return tokens;
}

function escapeRegExp(text: string): string {
  return text.replace(/[*[\](){}\\?$^+!.|]/g, '\\$&');
}

function compile(tokens: readonly Token[]): { re: RegExp; groups: Map<string, number> } {
  const groups = new Map<string, number>();
  let source = '';
  for (const t of tokens) {
    if (t.kind === 'literal') source += escapeRegExp(t.text);
    else {
      if (groups.has(t.name)) throw new ToolError(`Variable name "${t.name}" used more than once`);
      groups.set(t.name, groups.size + 1);
      source += '(.*?)';
    }
  }
  return { re: new RegExp(`^${source}$`, 's'), groups };
}

/** Does any of a list of --nsInclude / --nsExclude patterns match a namespace. */
export class NamespaceMatcher {
  private readonly patterns: RegExp[];

  constructor(patterns: readonly string[]) {
    this.patterns = patterns.map((p) => {
      if (p.includes('$'))
        throw new ToolError(`'$' is not allowed in include/exclude patterns: ${JSON.stringify(p)}`);
      return compile(wildcardTokens(p)).re;
    });
  }

  get empty(): boolean {
    return this.patterns.length === 0;
  }

  has(namespace: string): boolean {
    return this.patterns.some((re) => re.test(namespace));
  }
}

function count(text: string, c: string): number {
  return text.split(c).length - 1;
}

interface Rename {
  readonly re: RegExp;
  readonly replacement: ReadonlyArray<Token & { group?: number }>;
}

/** --nsFrom / --nsTo: the destination namespace of a source namespace. */
export class NamespaceRenamer {
  private readonly renames: Rename[] = [];

  constructor(from: readonly string[], to: readonly string[]) {
    if (from.length !== to.length)
      throw new ToolError(
        '--nsFrom and --nsTo arguments must be specified an equal number of times',
      );
    for (let i = from.length - 1; i >= 0; i--) {
      const f = from[i] as string;
      const t = to[i] as string;
      try {
        this.renames.push(this.pair(f, t));
      } catch (e) {
        if (e instanceof ToolError)
          throw new ToolError(
            `invalid renames: replacement from ${JSON.stringify(f)} to ${JSON.stringify(t)}: ${e.message}`,
          );
        throw e;
      }
    }
  }

  private pair(from: string, to: string): Rename {
    let fromTokens: Token[];
    let toTokens: Token[];
    if (from.includes('$')) {
      if (count(from, '$') % 2 !== 0) throw new ToolError('odd number of dollar signs in from');
      if (count(to, '$') % 2 !== 0) throw new ToolError('odd number of dollar signs in to');
      fromTokens = variableTokens(from);
      toTokens = variableTokens(to);
    } else {
      const stars = (s: string): number => count(s, '*') - count(s, '\\*');
      if (stars(from) !== stars(to))
        throw new ToolError('different number of asterisks in from and to');
      fromTokens = wildcardTokens(from);
      toTokens = wildcardTokens(to);
    }
    const { re, groups } = compile(fromTokens);
    const replacement = toTokens.map((t) => {
      if (t.kind === 'literal') return t;
      const group = groups.get(t.name);
      if (group === undefined) throw new ToolError(`unknown variable "${t.name}"`);
      return { ...t, group };
    });
    return { re, replacement };
  }

  get empty(): boolean {
    return this.renames.length === 0;
  }

  rename(namespace: string): string {
    for (const r of this.renames) {
      const m = r.re.exec(namespace);
      if (m === null) continue;
      return r.replacement
        .map((t) => (t.kind === 'literal' ? t.text : (m[t.group ?? 0] ?? '')))
        .join('');
    }
    return namespace;
  }
}

/** A database or collection name made literal inside a pattern (mongorestore's ns.Escape). */
export function escapePattern(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\*/g, '\\*');
}
