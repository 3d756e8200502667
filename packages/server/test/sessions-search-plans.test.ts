// Query plans of the sessions search on SQLite (no statistics, so the plan is the same on an
// empty store as on a large one): every query the service sends is bounded by an index on the
// site, and a probe of one session's pages or signals looks up that session's rows, never every
// pageview of the page (which took 150 s at 100k signals before the probe's page lost its index).
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../src/domain/context.ts';
import { searchSessions } from '../src/features/sessions/session-search.ts';
import type { SessionsSearchQuery } from '../src/features/sessions/schemas.ts';
import { sqliteHandleOf } from '../src/store/db.ts';
import type { Database } from '../src/store/tables.ts';
import { createTestStore, T0, type TestStore } from './helpers/harness.ts';

const SITE = '01900000-0000-7000-8000-000000000001';
const ISSUE = '01900000-0000-7000-8000-000000000002';
const HOUR = 3_600_000;

describe('sessions search query plans on SQLite', () => {
  let test: TestStore;
  let logged: Kysely<Database>;
  let queries: CompiledQuery[] = [];
  beforeAll(async () => {
    test = await createTestStore('sqlite');
    logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqliteHandleOf(test.store.db)! }),
      log: (e) => { if (e.level === 'query') queries.push(e.query); },
    });
    await test.store.db.insertInto('ux_issues').values({
      id: ISSUE, site_id: SITE, fingerprint: 'f', title: 't', page: '/checkout', element_selector: 'button.pay', element_label: null,
      type: 'rage_click', severity: 'high', severity_score: 60, severity_manual: null, status: 'open', assigned_to: null, signal_count: 1,
      session_count: 1, user_count: 1, first_seen_at: T0, last_seen_at: T0, resolved_at: null, ignored_at: null,
      status_changed_at: T0, created_at: T0, updated_at: T0, ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
  });
  afterAll(async () => { await test.drop(); });

  /** The plan of every sessions or events or signals query one search sends. */
  async function plans(input: SessionsSearchQuery) {
    const ctx = {
      auth: { kind: 'key', org: { id: 'o', name: 'o', duckFacts: false }, site: { id: SITE, name: 's', url: 'https://s.example' }, keyType: 'secret', keyId: null, scopes: ['query:read'], user: null, role: null, jti: null, tokenExpiresAt: null, mfaEnrolmentRequired: false, sessionId: null },
      db: logged, now: T0, requestId: 'plans', log: { info() {}, warn() {}, error() {} },
    } as unknown as ServiceContext;
    queries = [];
    await searchSessions({ ctx, input });
    const out: string[] = [];
    for (const q of queries.filter((q) => /from "(sessions|signals|events)"/.test(q.sql))) {
      const { rows } = await test.store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
      out.push(rows.map((r) => r.detail).join('\n'));
    }
    expect(out.length).toBeGreaterThanOrEqual(2);
    for (const plan of out) {
      expect(plan).not.toMatch(/\bSCAN (events|signals|sessions)\b/);
      expect(plan).not.toMatch(/events_site_page_time|signals_site_page_time|events_site_time|signals_site_time|sessions_site_last_seen|AUTOMATIC/);
    }
    return out;
  }
  const iso = (ms: number) => new Date(ms).toISOString();

  it('the default (friction, 7 days) walks sessions_site_friction; the count reads the window range', async () => {
    const [rows, count] = await plans({});
    expect(rows).toMatch(/USING INDEX sessions_site_friction \(site_id=\?\)/);
    expect(count).toMatch(/USING COVERING INDEX sessions_site_started \(site_id=\? AND first_seen_at>\?\)/);
  });

  it('a window under two days, and the other sorts, read the window range of sessions_site_started', async () => {
    for (const input of [{ from: iso(T0 - 3 * HOUR) }, { sort: 'start' }, { sort: 'duration' }] as SessionsSearchQuery[]) {
      const [rows] = await plans(input);
      expect(rows).toMatch(/USING INDEX sessions_site_started \(site_id=\? AND first_seen_at>\?\)/);
    }
  });

  it("page, signal type and issue probe the session's own rows", async () => {
    for (const page of ['/checkout', '/check*']) {
      for (const plan of await plans({ page })) expect(plan).toMatch(/SEARCH events (EXISTS )?USING COVERING INDEX events_site_sid_pageviews \(site_id=\? AND sid=\?\)/);
    }
    for (const input of [{ signal_type: 'rage_click' }, { issue_id: ISSUE }] as SessionsSearchQuery[]) {
      for (const plan of await plans(input)) expect(plan).toMatch(/SEARCH signals (EXISTS )?USING INDEX signals_site_sid \(site_id=\? AND sid=\?\)/);
    }
  });
});
