// Loading, empty and error states, the same on every screen. An error names the API's code.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../state/api.ts';

export type Load<T> =
  | { state: 'loading'; data?: undefined; error?: undefined }
  | { state: 'ok'; data: T; error?: undefined }
  | { state: 'error'; data?: undefined; error: ApiError };

const asApiError = (err: unknown) => (err instanceof ApiError ? err : new ApiError('client_error', err instanceof Error ? err.message : String(err), 0));

/** Runs `load` when `deps` change; an answer that arrives after newer deps is dropped. */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Load<T> & { reload(): void } {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const id = ++latest.current;
    setResult((r) => (r.state === 'ok' ? r : { state: 'loading' }));
    load().then(
      (data) => { if (id === latest.current) setResult({ state: 'ok', data }); },
      (err: unknown) => { if (id === latest.current) setResult({ state: 'error', error: asApiError(err) }); },
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...result, reload };
}

export function Loading({ what }: { what: string }) {
  return <p class="state loading" role="status" aria-live="polite">Loading {what}…</p>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

export function ErrorNote({ error, what, retry }: { error: ApiError; what: string; retry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>Could not {what}: {error.message} <span class="code">({error.code})</span></p>
      {retry && <button type="button" onClick={retry}>Try again</button>}
    </div>
  );
}

/** Renders the data once it is there; loading and error states otherwise. */
export function Async<T>({ load, what, children }: { load: Load<T> & { reload?(): void }; what: string; children: (data: T) => ComponentChildren }) {
  if (load.state === 'loading') return <Loading what={what} />;
  if (load.state === 'error') return <ErrorNote error={load.error} what={`load ${what}`} retry={load.reload} />;
  return <>{children(load.data)}</>;
}

/** A write in progress and its outcome, for buttons and forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>, success?: string) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await action();
      if (success) setDone(success);
      return true;
    } catch (err) {
      setError(asApiError(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run };
}

export function ActionOutcome({ action, what }: { action: ReturnType<typeof useAction>; what: string }) {
  if (action.error) return <ErrorNote error={action.error} what={what} />;
  if (action.done) return <p class="state done" role="status">{action.done}</p>;
  return null;
}
