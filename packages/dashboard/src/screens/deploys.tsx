// Deploys: confusion before -> after per deploy, coloured by direction, with related issues.
// #/deploys/<id> (a chart's deploy marker) opens that deploy: its card is marked, shows its
// related issues and is scrolled to.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href, route } from '../state/router.ts';
import type { Deploy, DeployDetail, DeployList } from '../api/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, Time } from '../components/bits.tsx';
import { RecordDeploys } from '../components/onboarding.tsx';
import { delta, score, words } from '../lib/format.ts';

/** Higher scores mean more confusion, so a rise is worse. A legacy deploy's scores straddle two scales: no direction. */
export function direction(d: Pick<Deploy, 'confusion_before' | 'confusion_after'> & Partial<Pick<Deploy, 'score_scale'>>): 'worse' | 'better' | 'same' | 'pending' | 'legacy' {
  if (d.confusion_after == null || d.confusion_before == null) return 'pending';
  if (d.score_scale === 'legacy') return 'legacy';
  const change = d.confusion_after - d.confusion_before;
  return Math.abs(change) < 0.05 ? 'same' : change > 0 ? 'worse' : 'better';
}

const OLD_SCALE = 'Recorded before the calibrated score scale: its after-score and change are on the old scale and cannot be compared with newer scores.';

export function DeployChange({ deploy }: { deploy: Deploy }) {
  const dir = direction(deploy);
  if (dir === 'pending') return <span class="change pending">{score(deploy.confusion_before)} → measuring…</span>;
  const change = `${score(deploy.confusion_before)} → ${score(deploy.confusion_after)} (${delta(deploy.confusion_after! - deploy.confusion_before!)}`;
  if (dir === 'legacy') return <span class="change legacy" title={OLD_SCALE}>{change}) <span class="badge old-scale">old scale</span></span>;
  return <span class={`change ${dir}`}>{change}, {dir === 'same' ? 'no change' : dir})</span>;
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
  const deploys = useApi(() => api.get<DeployList>('/query/deploys', { site_id: site, limit: 100 }), [site]);
  const chosen = route.value.path[0] === 'deploys' ? route.value.path[1] ?? null : null;
  const [open, setOpen] = useState<string | null>(chosen);
  useEffect(() => { if (chosen) setOpen(chosen); }, [chosen]);
  useEffect(() => {
    if (!chosen || deploys.state !== 'ok') return;
    const card = document.getElementById(`deploy-${chosen}`);
    card?.scrollIntoView({ block: 'start' });
    card?.focus({ preventScroll: true });
  }, [chosen, deploys.state]);
  return (
    <div class="screen">
      <h1>Deploys</h1>
      <p class="muted">The site's overall score (0 to 100) when each deploy was recorded, then over the time since it (up to 48 hours). A rise is worse. A deploy marked “old scale” was measured before the calibrated scale: its after-score and change cannot be compared with newer ones.</p>
      <Async load={deploys} what="deploys">
        {(d) => d.deploys.length === 0 ? <RecordDeploys /> : (
          <>
          {chosen && !d.deploys.some((x) => x.id === chosen) && <p class="state notice">The deploy this link names is not among the latest {d.deploys.length}.</p>}
          <ul class="deploys">
            {d.deploys.map((x) => (
              <li key={x.id} id={`deploy-${x.id}`} tabIndex={chosen === x.id ? -1 : undefined} aria-current={chosen === x.id ? 'true' : undefined}
                class={`card deploy ${direction(x)}${chosen === x.id ? ' chosen' : ''}`} data-deploy={x.version} data-deploy-id={x.id}>
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
          </>
        )}
      </Async>
    </div>
  );
}
