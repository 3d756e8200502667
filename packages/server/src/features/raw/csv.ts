// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted, quotes doubled, CRLF rows.
// Safe to open by default: a cell a spreadsheet would read as a formula is neutralised (OWASP's
// CSV injection rule), unless the caller asks for the verbatim file.

/** A cell starting with one of these is a formula (or becomes one) in Excel, LibreOffice and Sheets. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * OWASP's rule: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
 * single quote in front, so the spreadsheet shows it as text. Every cell, numbers included
 * (`-5` becomes `'-5`): the export has no numeric column, and the cells the server writes
 * itself (ids, times, types, environments) never start with these characters, so only
 * visitor-supplied text is ever changed.
 */
export const neutraliseFormula = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

export function csvField(value: unknown, neutralise = true): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = neutralise ? neutraliseFormula(raw) : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CRLF record; `neutralise: false` writes every cell verbatim (`?raw=1`). */
export const csvRow = (values: readonly unknown[], neutralise = true) => `${values.map((v) => csvField(v, neutralise)).join(',')}\r\n`;
