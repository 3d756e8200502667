// What a site's friction clips and page snapshots hold, against its daily byte budget, and how
// long they are kept: GET /v1/manage/site/{id}/clips; admins change the retention and the
// budget with PATCH /v1/manage/site/{id} (clip_retention_days, clip_daily_bytes).
import { useState } from 'preact/hooks';
import type { ClipUsage } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { bytes, num, percent } from '../../lib/format.ts';

const MIB = 1024 * 1024;

export function ClipStorage({ site }: { site: string }) {
  const usage = useApi(() => api.get<ClipUsage>(`/manage/site/${site}/clips`), [site]);
  // Outside the loaded block, so the outcome of a save survives the reload that follows it.
  const action = useAction();
  return (
    <section class="clip-storage" aria-labelledby="clip-storage-title">
      <h3 id="clip-storage-title">Clips storage</h3>
      <Async load={usage} what="the clips storage">
        {(u) => (
          <>
            <p>
              <strong>{num(u.clips)}</strong> clip{u.clips === 1 ? '' : 's'} and <strong>{num(u.snapshots)}</strong> page snapshot{u.snapshots === 1 ? '' : 's'}, {bytes(u.bytes)} compressed,
              kept {u.effective_clip_retention_days} days{u.effective_clip_retention_days < u.clip_retention_days ? ` (${u.clip_retention_days} asked; the site's raw data is kept no longer)` : ''}.
            </p>
            <p class="clip-budget">
              Today (since <Time iso={u.today_from} short />): {bytes(u.today_bytes)} of the daily {bytes(u.clip_daily_bytes)} budget
              {u.clip_daily_bytes > 0 && <> ({percent(Math.min(1, u.today_bytes / u.clip_daily_bytes))})</>}.{' '}
              {u.accepting ? 'Pages still send clips today.' : 'Spent: pages send no more clips until midnight UTC.'}
            </p>
            {canAdmin.value && <ClipStorageForm site={site} usage={u} action={action} saved={usage.reload} />}
          </>
        )}
      </Async>
      <ActionOutcome action={action} what="change the clips storage" />
    </section>
  );
}

function ClipStorageForm({ site, usage, action, saved }: { site: string; usage: ClipUsage; action: ReturnType<typeof useAction>; saved(): void }) {
  const [days, setDays] = useState(String(usage.clip_retention_days));
  const [budget, setBudget] = useState(String(Math.round((usage.clip_daily_bytes / MIB) * 10) / 10));
  const save = (e: Event) => {
    e.preventDefault();
    const clip_retention_days = Number(days);
    const clip_daily_bytes = Math.round(Number(budget) * MIB);
    void action.run(async () => {
      await api.patch(`/manage/site/${site}`, { clip_retention_days, clip_daily_bytes });
      saved();
    }, `Clips are kept ${clip_retention_days} days, with ${bytes(clip_daily_bytes)} a day.`);
  };
  return (
    <form class="row-form clip-storage-form" onSubmit={save}>
      <label for="clip-retention">Days kept</label>
      <input id="clip-retention" type="number" min={1} step={1} inputMode="numeric" required value={days} onInput={(e) => setDays(e.currentTarget.value)} />
      <label for="clip-budget">Daily budget (MB)</label>
      <input id="clip-budget" type="number" min={0} step={0.1} inputMode="decimal" required value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
      <button type="submit" disabled={action.busy}>Save</button>
    </form>
  );
}
