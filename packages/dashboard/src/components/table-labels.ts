// Labels every body cell of the dashboard's tables with its column's name (data-label), so the
// narrow-screen CSS (responsive.css) can show each row as a card without every screen writing
// its labels by hand. Runs once at start and again for the tables whose rows change.
import { cellLabels, columnNames } from '../layout/table-cards.ts';

const span = (cell: HTMLTableCellElement) => cell.colSpan || 1;

export function labelTable(table: HTMLTableElement) {
  const head = table.tHead?.rows[table.tHead.rows.length - 1];
  if (!head) return;
  const columns = columnNames([...head.cells].map((c) => ({ text: c.textContent ?? '', span: span(c) })));
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      const cells = [...row.cells];
      cellLabels(columns, cells.map((c) => ({ span: span(c) }))).forEach((label, i) => {
        if (cells[i].getAttribute('data-label') !== label) cells[i].setAttribute('data-label', label);
      });
    }
  }
}

/** Labels the tables under `root` now and whenever rows or tables are added. */
export function watchTableLabels(root: HTMLElement) {
  root.querySelectorAll('table').forEach(labelTable);
  new MutationObserver((records) => {
    const tables = new Set<HTMLTableElement>();
    for (const r of records) {
      const target = r.target instanceof Element ? r.target : r.target.parentElement;
      const table = target?.closest('table');
      if (table) tables.add(table);
      for (const node of r.addedNodes) if (node instanceof Element) node.querySelectorAll('table').forEach((t) => tables.add(t));
      if (r.target instanceof HTMLTableElement) tables.add(r.target);
    }
    tables.forEach(labelTable);
  }).observe(root, { childList: true, subtree: true, characterData: true });
}
