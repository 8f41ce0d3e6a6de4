// Architecture rules that a grep over src/ can check (docs/architecture.md, "Writes" and "The
// oplog"): every document change goes through the write unit, and every read of the oplog
// table through the oplog reader. Comments are ignored; strings and code are not.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  /** The only files (relative to the repository) where the pattern may appear. */
  readonly allowed: readonly string[];
  /** Folders the rule does not apply to (relative to the repository, ending in '/'). */
  readonly exempt?: readonly string[];
}

const rules: readonly Rule[] = [
  {
    name: 'document changes are told to the observer by the write unit only',
    pattern: /\bon(?:Insert|Update|Delete|TransactionCommit)\b/,
    // The unit calls them; observer.ts declares them; the oplog implements them; access
    // control's observer notes changes to admin.system.users/roles and forwards each call.
    allowed: [
      'src/catalog/write-unit.ts',
      'src/catalog/observer.ts',
      'src/repl/oplog.ts',
      'src/commands/auth/service.ts',
    ],
  },
  {
    name: 'metadata changes are told to the observer by the catalog only',
    pattern:
      /\bon(?:CreateCollection|DropCollection|RenameCollection|CollMod|CreateIndex|DropIndex)\b/,
    // Commands change metadata through Catalog.updateMeta with the change to log.
    allowed: [
      'src/catalog/catalog.ts',
      'src/catalog/observer.ts',
      'src/repl/oplog.ts',
      'src/commands/auth/service.ts',
    ],
  },
  {
    name: 'records are inserted, updated and removed by the write unit only',
    pattern: /\b(?:insertRecord|updateRecord|removeRecord)\b/,
    allowed: ['src/catalog/write-unit.ts', 'src/catalog/collection.ts'],
  },
  {
    name: 'the oplog table is read by the oplog reader only (and the store that writes it)',
    pattern: /\boplogTable\b|['"`]oplog['"`]/,
    allowed: ['src/repl/oplog-reader.ts', 'src/repl/oplog-store.ts'],
    // The dump and restore tools are clients: their "oplog" is local.oplog.rs over the wire.
    exempt: ['src/tools/'],
  },
];

/** Source text with comments blanked out (line structure kept, for line numbers). */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** `file:line: text` for each line of `files` breaking a rule, by rule name. */
function violations(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rule of rules) {
    const found: string[] = [];
    for (const [file, text] of files) {
      if (rule.allowed.includes(file)) continue;
      if (rule.exempt?.some((dir) => file.startsWith(dir)) === true) continue;
      withoutComments(text)
        .split('\n')
        .forEach((line, i) => {
          if (rule.pattern.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    out.set(rule.name, found);
  }
  return out;
}

function readSources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of sourceFiles(join(root, 'src')))
    files.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  return files;
}

describe('architecture', () => {
  const sources = readSources();

  for (const [name, found] of violations(sources)) {
    test(name, () => {
      assert.deepEqual(found, [], `outside their module:\n${found.join('\n')}`);
    });
  }

  test('the allowed modules exist and do what the rules say (the rules are not vacuous)', () => {
    assert.ok(sources.size > 100, 'src/ was read');
    const has = (file: string, re: RegExp): boolean => re.test(sources.get(file) ?? '');
    assert.ok(has('src/catalog/write-unit.ts', /observer\.onInsert\(/));
    assert.ok(has('src/catalog/write-unit.ts', /observer\.onUpdate\(/));
    assert.ok(has('src/catalog/write-unit.ts', /observer\.onDelete\(/));
    assert.ok(has('src/catalog/write-unit.ts', /\.insertRecord\(/));
    assert.ok(has('src/repl/oplog-reader.ts', /scan\(oplogTable/));
    assert.ok(has('src/catalog/catalog.ts', /observer\.onCreateIndex\(/));
    assert.ok(has('src/catalog/catalog.ts', /observer\.onCollMod\(/));
  });

  test('a direct observer call, record write or oplog read elsewhere is caught', () => {
    const planted = new Map([
      ['src/commands/crud/x.ts', 'catalog.observer.onInsert(txn, coll, doc, bytes, undefined);'],
      [
        'src/pipeline/stages/y.ts',
        '// observer.onDelete in a comment is fine\ncoll.removeRecord(txn, r);',
      ],
      ['src/query/exec/z.ts', "for (const e of view.scan('oplog', {})) use(e);"],
      ['src/server/w.ts', 'const t = oplogTable; /* onUpdate */'],
      ['src/commands/admin/v.ts', 'services.catalog.observer.onDropIndex(txn, c, spec);'],
    ]);
    const found = [...violations(planted).values()].flat();
    assert.deepEqual(found, [
      'src/commands/crud/x.ts:1: catalog.observer.onInsert(txn, coll, doc, bytes, undefined);',
      'src/commands/admin/v.ts:1: services.catalog.observer.onDropIndex(txn, c, spec);',
      'src/pipeline/stages/y.ts:2: coll.removeRecord(txn, r);',
      "src/query/exec/z.ts:1: for (const e of view.scan('oplog', {})) use(e);",
      'src/server/w.ts:1: const t = oplogTable;',
    ]);
  });
});
