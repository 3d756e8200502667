// A labelled form control with its own message: the settings forms show a failed check (their
// own, from the server's published schema, or the API's 400 naming `details.field`) next to
// the control it concerns, tied to it with aria-describedby.
import type { ComponentChildren } from 'preact';
import { ApiError } from '../state/api.ts';

/** The attributes a control needs to point at its message. */
export const controlProps = (id: string, error: string | undefined) => ({
  id, 'aria-invalid': error ? 'true' as const : undefined, 'aria-describedby': error ? `${id}-error` : undefined,
});

export function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: ComponentChildren; children: ComponentChildren }) {
  return (
    <span class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && <span class="small muted">{hint}</span>}
      {error && <span class="field-error" id={`${id}-error`} role="alert">{error}</span>}
    </span>
  );
}

/** The field an API answer names (`details.field`, as a dotted path) and its reason; null for any other failure. */
export function apiFieldIssue(err: unknown): { field: string; message: string } | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const field = err.details?.field;
  if (typeof field !== 'string' || field === 'body') return null;
  const reason = err.details?.reason;
  return { field, message: typeof reason === 'string' ? reason : err.message };
}
