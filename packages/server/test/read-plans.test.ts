// Query plans of the read routes that grew with a site's history (issue 17). SQLite keeps no
// statistics here, so an ORDER BY that an index happens to match can win over the index that
// bounds the read: these pin each read to the index that bounds it, on the exact queries the
// code compiles. EXPLAIN QUERY PLAN needs no rows: without statistics the plan is the same on
// an empty store as on a large one.
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionEventsQuery, sessionSignalsQuery } from '../src/features/sessions/session-events.ts';
import { linkedSessionsQuery } from '../src/features/issues/service.ts';
import { flowEdgesOf, loadSessions } from '../src/features/journeys/journey-sessions.ts';
import { revenueAtRisk } from '../src/pipeline/revenue.ts';
import { exportChunkQuery } from '../src/features/raw/events-csv.ts';
import { deployWithRelatedIssues } from '../src/features/deploys/deploy-detail.ts';
import { sqliteHandleOf } from '../src/store/db.ts';
import type { Database } from '../src/store/tables.ts';
import { createTestStore, T0, type TestStore } from './helpers/harness.ts';

const SITE = '01900000-0000-7000-8000-000000000001';
const sids = Array.from({ length: 50 }, (_, i) => i.toString(16).padStart(32, '0'));

describe('read query plans on SQLite', () => {
  let test: TestStore;
  /** The same connection, recording every query it runs. */
  let logged: Kysely<Database>;
  let queries: CompiledQuery[] = [];
  beforeAll(async () => {
    test = await createTestStore('sqlite');
    logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqliteHandleOf(test.store.db)! }),
      log: (e) => { if (e.level === 'query') queries.push(e.query); },
    });
  });
  afterAll(async () => { await test.drop(); });

  const planOf = async (query: CompiledQuery) => {
    const { rows } = await test.store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r.detail).join('\n');
  };
  /** The plans of every query `run` sends through the recording connection. */
  const plansWhile = async (run: (db: Kysely<Database>) => Promise<unknown>) => {
    queries = [];
    await run(logged);
    return Promise.all(queries.map(async (q) => ({ sql: q.sql, plan: await planOf(q) })));
  };
  const expectBounded = (plan: string) => {
    expect(plan).not.toMatch(/\bSCAN (events|signals|sessions)\b/);
    expect(plan).not.toMatch(/events_site_time|sessions_site_last_seen|AUTOMATIC/);
  };

  it("session: the session's events by events_dedupe (site_id, sid), its signals by signals_site_sid", async () => {
    const events = await planOf(sessionEventsQuery(test.store.db, SITE, sids[0]).compile());
    expect(events).toMatch(/SEARCH events USING INDEX \S+ \(site_id=\? AND sid=\?\)/);
    expectBounded(events);
    const signals = await planOf(sessionSignalsQuery(test.store.db, SITE, sids[0]).compile());
    expect(signals).toContain('SEARCH signals USING INDEX signals_site_sid (site_id=? AND sid=?)');
    expectBounded(signals);
  });

  it('journeys: pageviews and signals of the chosen sessions by (site_id, sid)', async () => {
    const plans = await plansWhile((db) => loadSessions(db, SITE, sids, true));
    expect(plans).toHaveLength(2);
    const [pageviews, signals] = plans;
    expect(pageviews.sql).toMatch(/from "events"/);
    expect(pageviews.plan).toContain('SEARCH events USING COVERING INDEX events_site_sid_pageviews (site_id=? AND sid=?)');
    expect(signals.plan).toContain('SEARCH signals USING INDEX signals_site_sid (site_id=? AND sid=?)');
    for (const p of plans) expectBounded(p.plan);
  });

  it("flows: the chosen sessions' pageviews from their covering index (migration 0011), in order, counted in the database", async () => {
    const plans = await plansWhile((db) => flowEdgesOf(db, SITE, sids, 100));
    expect(plans).toHaveLength(1);
    expect(plans[0].plan).toContain('SEARCH events USING COVERING INDEX events_site_sid_pageviews (site_id=? AND sid=?)');
    // The index holds each session's pageviews in (occurred_at, id) order: no sort for the window.
    expect(plans[0].plan).not.toMatch(/TEMP B-TREE FOR (LAST|RIGHT PART)/);
    expectBounded(plans[0].plan);
  });

  it("issue detail: the evidence's sessions by the unique (site_id, sid) index", async () => {
    const plan = await planOf(linkedSessionsQuery(test.store.db, SITE, sids.slice(0, 10)).compile());
    expect(plan).toMatch(/SEARCH sessions USING INDEX \S+ \(site_id=\? AND sid=\?\)/);
    expectBounded(plan);
  });

  it("revenue at risk: the window's conversion events by events_site_track, not the site's events", async () => {
    const plans = await plansWhile((db) => revenueAtRisk(db, SITE, T0));
    const conversions = plans.find((p) => /from "events"/.test(p.sql));
    expect(conversions?.plan).toContain('SEARCH events USING INDEX events_site_track (site_id=? AND name=? AND occurred_at>? AND occurred_at<?)');
    expectBounded(conversions!.plan);
  });

  it("deploy detail: its verifications by issue_verifications_deploy, the issues after it by ux_issues_site_first_seen", async () => {
    const deployId = '01900000-0000-7000-8000-0000000000d1';
    const orgId = '01900000-0000-7000-8000-0000000000a1';
    const raw = sqliteHandleOf(test.store.db)!;
    raw.prepare('insert into orgs (id, name, created_at) values (?, ?, 0)').run(orgId, 'Plans');
    raw.prepare("insert into sites (id, org_id, name, url, allowed_origins, created_at, updated_at) values (?, ?, 'S', 'https://s.example', '[]', 0, 0)").run(SITE, orgId);
    raw.prepare("insert into deploys (id, site_id, version, environment, deployed_at, confusion_before, pages_before, created_at) values (?, ?, 'v1', 'production', ?, 0, '[]', ?)").run(deployId, SITE, T0, T0);
    const plans = await plansWhile((db) => deployWithRelatedIssues(db, SITE, deployId));
    expect(plans).toHaveLength(3);
    const [, verified, appeared] = plans;
    expect(verified.plan).toContain('SEARCH issue_verifications USING INDEX issue_verifications_deploy (deploy_id=?)');
    expect(appeared.plan).toContain('SEARCH ux_issues USING INDEX ux_issues_site_first_seen (site_id=? AND first_seen_at>? AND first_seen_at<?)');
  });

  it('events export: each chunk seeks to where the last one ended, not from the site\'s first event', async () => {
    const plan = await planOf(exportChunkQuery(test.store.db, SITE, null, null, { at: T0, id: sids[0] }).compile());
    expect(plan).toContain('SEARCH events USING INDEX events_site_time (site_id=? AND occurred_at>?)');
  });
});
