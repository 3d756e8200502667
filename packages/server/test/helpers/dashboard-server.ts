// The real server the dashboard's browser suites drive: a SQLite store in `dir`, one org
// bootstrapped with `owner`, simulated traffic seeded through the real ingest path, limits
// lifted (the per-person limits are not what those suites are about), and the owner's token.
import { join } from 'node:path';
import { Secrets } from '../../src/auth/secrets.ts';
import { systemClock } from '../../src/clock.ts';
import { bootstrapOrg, type BootstrapResult } from '../../src/features/orgs/bootstrap.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { generatePlan } from '../../src/simulate/generate.ts';
import { seedStore } from '../../src/simulate/run.ts';
import { testConfig, TEST_SECRET } from './harness.ts';

export interface SeededDashboard { server: RunningServer; org: BootstrapResult; token: string }

export async function startSeededDashboard(dir: string, input: {
  owner: { email: string; password: string };
  org: string; siteName: string; siteUrl: string;
  days: number; sessionsPerDay: number; seed: string;
}): Promise<SeededDashboard> {
  const now = Date.now();
  const config = testConfig({ databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port: 0, host: '127.0.0.1', rateLimits: { query: 100_000, manage: 100_000, ingest: 100_000, guide: 100_000, mcp: 100_000 } });
  let org!: BootstrapResult;
  const server = await startServer(config, systemClock, {
    worker: false,
    beforeListen: async (store) => {
      org = await bootstrapOrg(store, new Secrets(TEST_SECRET), { org: input.org, siteName: input.siteName, siteUrl: input.siteUrl, ...input.owner }, now);
      await seedStore({ store, config, siteId: org.site_id, secretKey: org.keys.secret, plan: generatePlan({ days: input.days, sessionsPerDay: input.sessionsPerDay, seed: input.seed, end: now }) });
    },
  });
  const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input.owner) });
  const token = (await login.json() as { data: { token: string } }).data.token;
  return { server, org, token };
}
