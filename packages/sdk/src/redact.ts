// Labels leave the browser short and stripped of personal data (DOMAIN.md section 2).

export const REDACTED = '[redacted]';
export const LABEL_MAX = 80;

const PATTERNS: RegExp[] = [
  /[^\s@<>()"']+@[^\s@<>()"']+\.[a-z]{2,}/gi, // emails
  /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+/gi, // URLs
  /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g, // IBAN-like
];
// Phone numbers and card-like runs: digits with spaces, dots, dashes or brackets, 7 digits or more.
const DIGIT_RUN = /\+?\(?\d[\d ().-]{5,}\d/g;

export function redact(text: string): string {
  let out = text;
  for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
  return out.replace(DIGIT_RUN, (run) => (run.replace(/\D/g, '').length >= 7 ? REDACTED : run));
}

/** One line, redacted, at most 80 characters. */
export function cleanText(text: string | null | undefined): string {
  const line = redact((text ?? '').replace(/\s+/g, ' ').trim());
  return line.length > LABEL_MAX ? `${line.slice(0, LABEL_MAX - 1)}…` : line;
}
