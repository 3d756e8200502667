// Deploys: confusion before -> after per deploy, coloured by direction, with related issues.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href } from '../state/router.ts';
import type { Deploy, DeployDetail } from '../state/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, Time } from '../components/bits.tsx';
import { delta, score, words } from '../lib/format.ts';

/** Higher scores mean more confusion, so a rise is worse. */
export function direction(d: Pick<Deploy, 'confusion_before' | 'confusion_after'>): 'worse' | 'better' | 'same' | 'pending' {
  if (d.confusion_after == null || d.confusion_before == null) return 'pending';
  const change = d.confusion_after - d.confusion_before;
  return Math.abs(change) < 0.05 ? 'same' : change > 0 ? 'worse' : 'better';
}

export function DeployChange({ deploy }: { deploy: Deploy }) {
  const dir = direction(deploy);
  if (dir === 'pending') return <span class="change pending">{score(deploy.confusion_before)} → measuring…</span>;
  return (
    <span class={`change ${dir}`}>
      {score(deploy.confusion_before)} → {score(deploy.confusion_after)} ({delta(deploy.confusion_after! - deploy.confusion_before!)}, {dir === 'same' ? 'no change' : dir})
    </span>
  );
}

function Related({ site, id }: { site: string; id: string }) {
  const detail = useApi(() => api.get<DeployDetail>(`/query/deploys/${id}`, { site_id: site }), [site, id]);
  return (
    <Async load={detail} what="related issues">
      {(d) => d.related_issues.length === 0 ? <Empty>No issues relate to this deploy.</Empty> : (
        <ul class="plain-list">
          {d.related_issues.map((i) => (
            <li key={i.id}>
              <Badge kind="severity" value={i.severity} /> <a href={href('issues', i.id)}>{i.title}</a> · <Badge kind="status" value={i.status} />
              <span class="muted small"> ({words(i.relation)}{i.verification_result ? `: ${words(i.verification_result)}` : ''})</span>
            </li>
          ))}
        </ul>
      )}
    </Async>
  );
}

export function DeploysScreen({ site }: { site: string }) {
  const deploys = useApi(() => api.get<{ deploys: Deploy[]; total: number }>('/query/deploys', { site_id: site, limit: 100 }), [site]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div class="screen">
      <h1>Deploys</h1>
      <p class="muted">Confusion across the site in the hours before and after each deploy. A rise is worse.</p>
      <Async load={deploys} what="deploys">
        {(d) => d.deploys.length === 0 ? <Empty>No deploys recorded. Record them from CI with POST /v1/manage/deploys.</Empty> : (
          <ul class="deploys">
            {d.deploys.map((x) => (
              <li key={x.id} class={`card deploy ${direction(x)}`} data-deploy={x.version}>
                <div class="deploy-head">
                  <strong>{x.version}</strong> <span class="muted">{x.environment}</span> · <Time iso={x.deployed_at} />
                  <DeployChange deploy={x} />
                </div>
                {x.description && <p>{x.description}</p>}
                <p class="muted small">{x.author ?? 'unknown author'}{x.commit_sha && <> · <code>{x.commit_sha.slice(0, 9)}</code></>}{x.url && <> · <a href={x.url} rel="noreferrer noopener" target="_blank">link</a></>}</p>
                <button type="button" aria-expanded={open === x.id} onClick={() => setOpen(open === x.id ? null : x.id)}>
                  {open === x.id ? 'Hide related issues' : 'Related issues'}
                </button>
                {open === x.id && <Related site={site} id={x.id} />}
              </li>
            ))}
          </ul>
        )}
      </Async>
    </div>
  );
}
