// Money for people, from the cents every stored amount and `_cents` field is kept in.

/** Whole currency units for people: $7,167, €525; an unknown code is written out (7,167 XYZ). */
export function formatMoney(cents: number, currency: string): string {
  const units = Math.round(cents / 100);
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(units);
  } catch {
    return `${units.toLocaleString('en-US')} ${currency}`;
  }
}
