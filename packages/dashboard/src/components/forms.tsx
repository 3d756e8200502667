// Form pieces for the settings: a confirm-twice button for destructive actions, a secret shown
// once with a copy button, and a labelled checkbox group.
import { useState } from 'preact/hooks';
import { CopyButton } from './bits.tsx';

/** A destructive action asks once more, in the page (no browser dialog). */
export function ConfirmButton({ label, question, onConfirm, disabled }: { label: string; question: string; onConfirm(): void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" class="danger" disabled={disabled} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="button" class="danger" onClick={() => { setAsking(false); onConfirm(); }}>Yes, {label.toLowerCase()}</button>
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}

/** A credential the API returns once: shown with a copy button and a warning. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="shown-once" role="status">
      <p><strong>{label}</strong>: copy it now. Mallard keeps only a hash and will not show it again.</p>
      <p class="secret"><code>{value}</code> <CopyButton text={value} /></p>
    </div>
  );
}

export function Checkboxes({ legend, options, chosen, onChange }: { legend: string; options: readonly string[]; chosen: string[]; onChange(next: string[]): void }) {
  return (
    <fieldset class="checks">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o} class="check">
          <input type="checkbox" checked={chosen.includes(o)} onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, o] : chosen.filter((c) => c !== o))} /> {o}
        </label>
      ))}
    </fieldset>
  );
}
