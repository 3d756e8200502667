// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted, quotes doubled, CRLF rows.
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvRow = (values: readonly unknown[]) => `${values.map(csvField).join(',')}\r\n`;
