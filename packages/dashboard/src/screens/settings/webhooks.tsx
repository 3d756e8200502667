import { useState } from 'preact/hooks';
import type { DeliveryList, NewWebhook, TestDelivery, Webhook, WebhookList } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Badge, Time } from '../../components/bits.tsx';
import { Checkboxes, ConfirmButton, ShownOnce } from '../../components/forms.tsx';

const EVENTS = ['issue.created', 'issue.updated', 'issue.regressed', 'issue.verified', 'alert.fired', 'alert.acknowledged', 'alert.investigating', 'alert.resolved', 'deploy.recorded', 'score.spike'] as const;

function Deliveries({ hook }: { hook: Webhook }) {
  const list = useApi(() => api.get<DeliveryList>(`/manage/webhooks/${hook.id}/deliveries`, { limit: 20 }), [hook.id]);
  const action = useAction();
  const test = () => action.run(async () => {
    const d = await api.post<TestDelivery>(`/manage/webhooks/${hook.id}/test`, undefined);
    list.reload();
    if (d.status !== 'delivered') throw new Error(`The test was not delivered: ${d.last_error ?? `HTTP ${d.last_status_code ?? '?'}`}`);
  }, 'Test event delivered.');
  return (
    <div class="deliveries">
      {canAdmin.value && <button type="button" disabled={action.busy} onClick={() => void test()}>Send a test event</button>}
      <ActionOutcome action={action} what="send the test" />
      <Async load={list} what="deliveries">
        {(l) => l.deliveries.length === 0 ? <Empty>No deliveries yet.</Empty> : (
          <ul class="plain-list">
            {l.deliveries.map((d) => (
              <li key={d.id}>
                <Time iso={d.created_at} short /> · {d.event_type} · <Badge kind="status" value={d.status} /> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                {d.last_status_code != null && ` · HTTP ${d.last_status_code}`}{d.last_error && ` · ${d.last_error}`}
                {canAdmin.value && d.status === 'failed' && <> <button type="button" disabled={action.busy} onClick={() => void action.run(async () => { await api.post(`/manage/webhooks/${hook.id}/deliveries/${d.id}/retry`, undefined); list.reload(); }, 'Sent again.')}>Send again</button></>}
              </li>
            ))}
          </ul>
        )}
      </Async>
    </div>
  );
}

export function WebhooksSection({ site }: { site: string | null }) {
  const hooks = useApi(() => api.get<WebhookList>('/manage/webhooks', { site_id: site }), [site]);
  const action = useAction();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['alert.fired', 'issue.regressed']);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const admin = canAdmin.value;
  const create = (e: Event) => {
    e.preventDefault();
    setSecret(null);
    void action.run(async () => {
      const hook = await api.post<NewWebhook>('/manage/webhooks', { site_id: site, url: url.trim(), events });
      if (hook.secret) setSecret(hook.secret);
      setUrl('');
      hooks.reload();
    }, 'Webhook created.');
  };
  return (
    <>
      <h2>Webhooks</h2>
      <Async load={hooks} what="webhooks">
        {(l) => l.webhooks.length === 0 ? <Empty>No webhooks yet. {admin ? 'Add one below' : 'An admin can add one'} to have alerts, issues and deploys sent to your own address; each delivery is signed (Standard Webhooks) so the receiver can check it came from Mallard.</Empty> : (
          <ul class="plain-list">
            {l.webhooks.map((h) => (
              <li key={h.id} class="item">
                <div><code>{h.url}</code> · {h.enabled ? 'enabled' : 'disabled'} · <span class="small">{h.events.join(', ')}</span></div>
                <div class="actions">
                  <button type="button" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? null : h.id)}>{open === h.id ? 'Hide deliveries' : 'Deliveries'}</button>
                  {admin && <button type="button" disabled={action.busy} onClick={() => void action.run(async () => { await api.patch(`/manage/webhooks/${h.id}`, { enabled: !h.enabled }); hooks.reload(); })}>{h.enabled ? 'Disable' : 'Enable'}</button>}
                  {admin && <ConfirmButton label="Delete" question={`Delete the webhook to ${h.url}?`} disabled={action.busy} onConfirm={() => void action.run(async () => { await api.del(`/manage/webhooks/${h.id}`); hooks.reload(); }, 'Webhook deleted.')} />}
                </div>
                {open === h.id && <Deliveries hook={h} />}
              </li>
            ))}
          </ul>
        )}
      </Async>
      {admin && (
        <form class="stack-form" onSubmit={create}>
          <h3>New webhook</h3>
          <label for="hook-url">Address</label>
          <input id="hook-url" type="url" required placeholder="https://hooks.example.com/mallard" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          <Checkboxes legend="Events" options={EVENTS} chosen={events} onChange={setEvents} />
          <button type="submit" class="primary" disabled={action.busy || events.length === 0}>Create webhook</button>
        </form>
      )}
      {secret && <ShownOnce label="The signing secret" value={secret} />}
      <ActionOutcome action={action} what="change the webhooks" />
    </>
  );
}
