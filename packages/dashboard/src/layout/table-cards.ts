// On a phone a table becomes a stack of cards, one a row, each cell headed by its column's
// name (CSS reads it from data-label). These give each cell of a row the name of its column,
// spanning columns included.

export interface Cell { text: string; span: number }

/** The name of each column, a header spanning n columns naming all n; whitespace collapsed. */
export function columnNames(headers: readonly Cell[]): string[] {
  const names: string[] = [];
  for (const h of headers) for (let i = 0; i < Math.max(1, h.span); i++) names.push(h.text.replace(/\s+/g, ' ').trim());
  return names;
}

/** The label of each cell of a row: the name of the column it starts in ('' past the last column). */
export function cellLabels(columns: readonly string[], cells: readonly { span: number }[]): string[] {
  let at = 0;
  return cells.map((c) => {
    const label = columns[at] ?? '';
    at += Math.max(1, c.span);
    return label;
  });
}
