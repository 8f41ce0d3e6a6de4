// Markdown tables for the printed reports (pure: tested in test/unit/bench).

export type Align = 'left' | 'right';

/** Cells may not contain a raw '|' or a line break: either would split the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * A GitHub-flavoured markdown table, columns padded so that it also reads well as plain
 * text in a terminal. `align` defaults to left for the first column and right for the rest
 * (labels, then figures).
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly Align[],
): string {
  const cols = headers.length;
  const aligns: Align[] = headers.map((_, i) => align?.[i] ?? (i === 0 ? 'left' : 'right'));
  const body = rows.map((r) => headers.map((_, i) => cell(r[i] ?? '')));
  const head = headers.map(cell);
  // Width in code points, so that "µs" and "×" do not throw the padding off.
  const len = (s: string): number => [...s].length;
  const widths = head.map((h, i) => Math.max(3, len(h), ...body.map((r) => len(r[i] ?? ''))));
  const pad = (s: string, i: number): string => {
    const w = widths[i] ?? 3;
    const fill = ' '.repeat(Math.max(0, w - len(s)));
    return aligns[i] === 'right' ? fill + s : s + fill;
  };
  const line = (r: readonly string[]): string => `| ${r.map((s, i) => pad(s, i)).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (aligns[i] === 'right' ? ` ${'-'.repeat(w - 1)}: ` : ` ${'-'.repeat(w)} `)).join('|')}|`;
  if (cols === 0) return '';
  return [line(head), rule, ...body.map(line)].join('\n');
}
