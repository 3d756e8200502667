// The demo's clips and page snapshots, sent through the real upload route (POST
// /v1/ingest/clips) once the simulated traffic is stored: for each planted problem, clips of its
// most recent signals (one session each, with any other signal of that session inside the clip),
// and one snapshot of each static page per device class, so the heatmaps sit over their pages.
import type { Kysely } from 'kysely';
import { createHash } from 'node:crypto';
import type { App } from '../app.ts';
import type { Database } from '../store/tables.ts';
import { DEVICES, PROBLEMS } from '../simulate/scenario.ts';
import { CLIP_AFTER_MS, demoClip, demoPageSnapshot, type ClipSignal, type Viewport } from './clips.ts';
import { DEMO_PAGES } from './demo-pages.ts';

/** Clips made per planted problem: the server keeps 5 per element a day. */
export const CLIPS_PER_PROBLEM = 5;
/** The upload route takes clips of the last 7 days; the demo's come from the last 6. */
const RECENT_MS = 6 * 24 * 3600_000;

const VIEWPORTS: Record<string, Viewport> = { desktop: { width: 1280, height: 800 }, mobile: { width: 390, height: 844 }, tablet: { width: 820, height: 1180 } };
const userAgent = (device: string) => (DEVICES.find((d) => d.type === device) ?? DEVICES[0]).uas[0];

/** A stable upload id, so a second seeding of the same data is acknowledged as a duplicate. */
const uploadId = (...parts: string[]) => createHash('sha256').update(parts.join(':')).digest('hex').slice(0, 32);

export interface DemoClipSummary { clips: number; snapshots: number }

async function upload(app: App, key: string, device: string, body: Record<string, unknown>): Promise<boolean> {
  const viewport = VIEWPORTS[device] ?? VIEWPORTS.desktop;
  const res = await app.inject({
    method: 'POST', url: '/v1/ingest/clips',
    headers: { authorization: `Bearer ${key}`, 'user-agent': userAgent(device) },
    payload: { ...body, meta: { viewport_w: viewport.width, viewport_h: viewport.height }, width: viewport.width, height: viewport.height },
  });
  if (res.statusCode !== 202) throw new Error(`POST /v1/ingest/clips: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return (res.json() as { data: { stored: boolean } }).data.stored;
}

export async function uploadDemoClips(app: App, db: Kysely<Database>, key: string, siteId: string, now: number): Promise<DemoClipSummary> {
  const summary: DemoClipSummary = { clips: 0, snapshots: 0 };
  for (const problem of Object.values(PROBLEMS)) {
    const found = await db.selectFrom('signals')
      .innerJoin('sessions', (j) => j.onRef('sessions.site_id', '=', 'signals.site_id').onRef('sessions.sid', '=', 'signals.sid'))
      .select(['signals.sid', 'signals.event_id', 'signals.occurred_at', 'sessions.device_type'])
      .where('signals.site_id', '=', siteId).where('signals.page', '=', problem.page).where('signals.element', '=', problem.selector)
      .where('signals.signal_type', 'in', [...problem.types]).where('signals.occurred_at', '>=', now - RECENT_MS)
      .orderBy('signals.occurred_at', 'desc').limit(200).execute();
    const seen = new Set<string>();
    for (const signal of found) {
      if (seen.size === CLIPS_PER_PROBLEM) break;
      if (seen.has(signal.sid)) continue;
      seen.add(signal.sid);
      // The session's signals on this page in the 5 s after this one join its clip, as in the SDK.
      // A clip names signals by the id the SDK gave their events, kept as the dedupe key `id:<id>`.
      const around: ClipSignal[] = (await db.selectFrom('signals').innerJoin('events', 'events.id', 'signals.event_id')
        .select(['events.dedupe_key', 'signals.signal_type', 'signals.element', 'signals.vx', 'signals.vy', 'signals.occurred_at'])
        .where('signals.site_id', '=', siteId).where('signals.sid', '=', signal.sid).where('signals.page', '=', problem.page)
        .where('signals.occurred_at', '>=', Number(signal.occurred_at)).where('signals.occurred_at', '<=', Number(signal.occurred_at) + CLIP_AFTER_MS)
        .orderBy('signals.occurred_at').limit(50).execute())
        .filter((s) => s.dedupe_key.startsWith('id:'))
        .map(({ dedupe_key, ...s }) => ({ ...s, event_id: dedupe_key.slice(3), occurred_at: Number(s.occurred_at) }));
      const device = signal.device_type ?? 'desktop';
      const clip = demoClip(problem.page, VIEWPORTS[device] ?? VIEWPORTS.desktop, around);
      if (!clip) continue;
      const stored = await upload(app, key, device, {
        sid: signal.sid, id: uploadId('clip', signal.event_id), kind: 'clip', page: problem.page,
        signal_ids: clip.signal_ids, started_at: clip.started_at, ended_at: clip.ended_at, events: clip.events,
      });
      if (stored) summary.clips++;
    }
  }

  // One snapshot per page and device class, filed under a recent session of that device (an
  // upload belongs to a session, as the SDK's do).
  for (const device of Object.keys(VIEWPORTS)) {
    const session = await db.selectFrom('sessions').select('sid').where('site_id', '=', siteId).where('device_type', '=', device)
      .orderBy('last_seen_at', 'desc').limit(1).executeTakeFirst();
    if (!session) continue;
    for (const page of Object.keys(DEMO_PAGES)) {
      const at = now - 60_000;
      const events = demoPageSnapshot(page, VIEWPORTS[device], at)!;
      const stored = await upload(app, key, device, { sid: session.sid, id: uploadId('snapshot', device, page), kind: 'snapshot', page, started_at: at, ended_at: at, events });
      if (stored) summary.snapshots++;
    }
  }
  return summary;
}
