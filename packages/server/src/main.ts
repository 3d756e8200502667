// The `mallard` CLI. Every command has --help; bad arguments exit non-zero with one line.
// What only one command needs is imported by that command, so `mallard worker` never loads
// the HTTP app (Fastify, the routes) that `serve` and `simulate` use.
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { Secrets } from './auth/secrets.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './auth/passwords.ts';
import { AppError } from './domain/errors.ts';
import { openStore, parseDatabaseUrl } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import type { SimulateCliOptions } from './simulate/cli.ts';
import { startWorker } from './worker.ts';
import { activeSiteIds, runCycle } from './pipeline/cycle.ts';
import { logFormatFor, processLogger } from './logs/terminal-log.ts';
import { Presets, SingleBar } from 'cli-progress';
import { KEYS_CREATE_DEFAULT_SCOPES, runKeysCreate, runKeysList, runKeysRevoke, type KeysCreateOptions, type KeysListOptions } from './cli/keys.ts';
import type { PrivacyOptions } from './cli/privacy.ts';
import { BridgeError, bridgeSettings, DEFAULT_MALLARD_URL, runBridge } from './mcp/stdio.ts';

class UsageError extends Error {}

const program = new Command()
  .name('mallard')
  .description('Mallard: self-hostable confusion analytics. Configuration comes from environment variables (see README).')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

/** Stops gracefully on SIGTERM or SIGINT: finish what is running, then exit 0. */
function stopOnSignal(log: { info(msg: string): void }, stop: () => Promise<void>) {
  const shutdown = (signal: string) => {
    log.info(`${signal} received, shutting down`);
    stop().then(() => process.exit(0), (err) => {
      console.error(`mallard: shutdown failed: ${(err as Error).message}`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

function parseTime(value: string, flag: string): number {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) throw new UsageError(`${flag} must be an ISO 8601 time, got "${value}"`);
  return ms;
}

program.command('serve')
  .description('Run the HTTP API with the pipeline scheduler, alert and webhook delivery, and housekeeping (migrates the store first). Listens on HOST:PORT (default 127.0.0.1:8787). With the demo on (the default in development; MALLARD_DEMO=0 skips it, MALLARD_DEMO=1 forces it), the first start on an empty store creates a demo org, site, user and keys with 14 days of traffic (credentials in the data dir, demo-credentials.json), and live demo traffic keeps flowing while it serves.')
  .option('--no-worker', 'serve the API only; run `mallard worker` separately for the pipeline and deliveries')
  .action(async (opts: { worker: boolean }) => {
    const config = loadConfig();
    const { serveWithDemo } = await import('./demo/serve.ts');
    const { progressBars } = await import('./simulate/progress.ts');
    const bars = progressBars();
    let banner: string | null = null;
    const { server, stop } = await serveWithDemo(config, systemClock, {
      worker: opts.worker,
      logFormat: logFormatFor(process.stdout),
      demo: { log: (line) => console.log(line), onProgress: bars.onProgress },
      print: (text) => { banner = text; },
    });
    bars.stop();
    stopOnSignal(server.app.log, stop);
    // The demo's banner is the last thing a start prints ("Mallard listening on" is before it),
    // once Ctrl-C already stops the server gracefully.
    if (banner !== null) console.log(banner);
  });

program.command('worker')
  .description('Run the pipeline scheduler, alert and webhook delivery, and housekeeping without HTTP (migrates the store first).')
  .action(async () => {
    const config = loadConfig();
    const store = openStore(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
    await migrateToLatest(store.db);
    const log = processLogger(config.logLevel, logFormatFor(process.stdout));
    store.faults.logTo(log);
    const worker = startWorker(store, systemClock, config, log);
    // The worker's timers never hold the process open (serve's listening socket does): this
    // does, until a signal stops it.
    const running = setInterval(() => {}, 1 << 30);
    log.info(`Mallard worker running: a cycle every ${config.pipelineIntervalMs / 60_000} min`);
    stopOnSignal(log, async () => {
      clearInterval(running);
      await worker.stop();
      await store.close();
    });
  });

program.command('pipeline')
  .description('Run one pipeline cycle as of a time (default now, unrounded), or every cycle of a past range with --from/--to.')
  .option('--site <id>', 'only this site (default: every site)')
  .option('--at <iso8601>', 'the cycle time (default now)')
  .option('--from <iso8601>', 'backfill: first cycle time (rounded up to the interval)')
  .option('--to <iso8601>', 'backfill: last cycle time (default now)')
  .action(async (opts: { site?: string; at?: string; from?: string; to?: string }) => {
    if (opts.at && (opts.from || opts.to)) throw new UsageError('--at cannot be combined with --from/--to');
    if (opts.to && !opts.from) throw new UsageError('--to needs --from');
    const config = loadConfig();
    const interval = config.pipelineIntervalMs;
    let times: number[];
    if (opts.from) {
      const from = Math.ceil(parseTime(opts.from, '--from') / interval) * interval;
      const to = opts.to ? parseTime(opts.to, '--to') : systemClock.now();
      if (to < from) throw new UsageError('--to must not be before --from');
      times = [];
      for (let t = from; t <= to; t += interval) times.push(t);
    } else {
      times = [opts.at ? parseTime(opts.at, '--at') : systemClock.now()];
    }
    const store = openStore(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
    try {
      await migrateToLatest(store.db);
      const sites = opts.site ? [opts.site] : await activeSiteIds(store.db);
      if (opts.site && !(await store.db.selectFrom('sites').select('id').where('id', '=', opts.site).where('deleted_at', 'is', null).executeTakeFirst())) {
        throw new UsageError(`--site ${opts.site} is not a site`);
      }
      const bar = times.length > 1 ? new SingleBar({ format: 'backfill [{bar}] {value}/{total} cycles {eta_formatted} left', stream: process.stderr }, Presets.legacy) : null;
      bar?.start(times.length * sites.length, 0);
      let done = 0;
      let busy = 0;
      for (const at of times) {
        for (const siteId of sites) {
          // On db, not pipelineDb (the scheduler's): this process serves nothing else, so moving
          // the reads off its main thread would only add a copy of every row between threads.
          const result = await runCycle(store.db, siteId, at, { intervalMs: interval, clock: systemClock });
          if (result.status === 'busy') busy++; else done++;
          if (!bar && result.status === 'done') {
            console.log(`site ${siteId} cycle ${new Date(at).toISOString()}: ${result.scores.scored} pages scored, ${result.scores.stale} stale, overall ${result.scores.overallScore}; ${result.issues.created} issues new, ${result.issues.updated} updated; ${result.verifications.decided} verifications decided; ${result.alerts.fired} alerts fired`);
          }
          bar?.increment();
        }
      }
      bar?.stop();
      if (bar) console.log(`${done} cycles run over ${sites.length} site(s) from ${new Date(times[0]).toISOString()} to ${new Date(times[times.length - 1]).toISOString()}`);
      if (busy) console.log(`${busy} cycle(s) skipped: another process was running that site`);
    } finally {
      await store.close();
    }
  });

program.command('simulate')
  .description('Generate realistic synthetic traffic (sessions, friction, planted problems, conversions) through the real ingest path: into a site of this store (--site, with the pipeline backfilled and the story\'s deploys and fixes), or to a server (--url and --key). Deterministic for a given seed, options and --until.')
  .option('--days <n>', 'days of traffic, ending at --until (at most 90)', '14')
  .option('--sessions-per-day <n>', 'sessions on an average day (days x sessions at most 200000 per run)', '250')
  .option('--seed <text>', 'random seed: the same seed and options give the same traffic', 'mallard')
  .option('--until <iso8601>', 'end of the simulated period (default now)')
  .option('--site <id>', 'the site to fill in this store (DATABASE_URL); with --url and an org-scoped secret key, the site to send to')
  .option('--url <url>', 'send to this Mallard server\'s /v1/ingest instead of the store')
  .option('--key <key>', 'with --url: a publishable key (live traffic, stamped with the server\'s time) or a secret key with ingest:write (an import that keeps the simulated times)')
  .option('--no-pipeline', 'with --site: store the traffic only (no pipeline backfill, deploys or fixes)')
  .option('--ndjson', 'print the batches as JSON lines instead of sending them')
  .action(async (opts: SimulateCliOptions) => {
    const { runSimulate } = await import('./simulate/cli.ts');
    await runSimulate(opts, () => loadConfig(), systemClock, (message) => new UsageError(message));
  });

const keys = program.command('keys').description('API keys, as the operator (straight in the store; no user token needed): `keys create` mints one for a site, `keys list` shows the active ones, `keys revoke` ends one.');
keys.command('create')
  .description('Mint an API key for a site and print it once (only an HMAC of it is stored).')
  .requiredOption('--site <id>', 'the site the key belongs to (its id, a UUID)')
  .requiredOption('--type <type>', 'key type: secret, mcp or publishable')
  .option('--scopes <list>', `comma-separated scopes (default ${KEYS_CREATE_DEFAULT_SCOPES})`)
  .option('--name <name>', 'a label shown in key lists')
  .option('--expires-in <duration>', 'the key stops working after this long: a whole number of days, hours or minutes, e.g. 30d, 12h or 90m (at most 3650d; default: never)')
  .option('--json', 'print the key record with the key as JSON: {id, org_id, site_id, key_type, name, scopes, key_hint, created_by, created_at, expires_at, last_used_at, status, key}')
  .action(async (opts: KeysCreateOptions) => {
    await runKeysCreate(opts, () => loadConfig(), systemClock, (message) => new UsageError(message));
  });

keys.command('list')
  .description('List the keys that are not revoked (never the keys themselves): id, type, status (active or expired), hint, name, site, created, expires, last used.')
  .option('--site <id>', 'only this site\'s keys')
  .option('--org <id>', 'only this org\'s keys')
  .option('--json', 'print {keys: [{id, org_id, site_id, key_type, name, scopes, key_hint, created_by, created_at, expires_at, last_used_at, status}]} as JSON')
  .action(async (opts: KeysListOptions) => {
    await runKeysList(opts, () => loadConfig(), systemClock, (message) => new UsageError(message));
  });
keys.command('revoke')
  .description('Revoke a key by its id: it fails at once here and within 5 seconds on other running processes. Audited.')
  .argument('<id>', 'the key id (a UUID, as `keys list` shows it)')
  .action(async (id: string) => {
    await runKeysRevoke(id, () => loadConfig(), systemClock, (message) => new UsageError(message));
  });

const secret = program.command('secret').description('MALLARD_SECRET rotation, as the operator: `secret rotate` re-seals stored secrets under the new MALLARD_SECRET.');
secret.command('rotate')
  .description('With MALLARD_SECRET set to the new secret and MALLARD_SECRET_PREVIOUS to the old one: re-seal every stored sealed secret (webhook signing secrets, integration credentials, kept Idempotency-Key answers, SSO client secrets and the PKCE verifiers of unfinished SSO sign-ins) made with the old secret under the new one, one transaction per table, and print counts. Safe to run again, while Mallard runs. API keys cannot be re-hashed without the key (only its HMAC is stored): each verifies against both secrets and is re-hashed on its next use; a key unused until MALLARD_SECRET_PREVIOUS is dropped stops working. Invitation and reset tokens verify against both until they expire. Exits 1 if MALLARD_SECRET_PREVIOUS is not set. See docs/operations.md, "Rotating MALLARD_SECRET".')
  .action(async () => {
    const { runSecretRotate } = await import('./cli/secrets.ts');
    await runSecretRotate(() => loadConfig(), systemClock, (message) => new UsageError(message));
  });

const privacy = program.command('privacy').description('Data-subject requests (GDPR articles 15 and 17, CCPA), as the operator: `privacy export` prints everything stored about one person, `privacy erase` removes it. Audited.');
for (const action of ['export', 'erase'] as const) {
  privacy.command(action)
    .description(action === 'export'
      ? 'Print, as JSON on stdout, every session, event and signal of one person on a site (by visitor id or user_ref), streamed.'
      : 'Erase one person on a site (by visitor id or user_ref): their sessions, events, signals and issue evidence, a batch of sessions per transaction; aggregates stay. Running it again finds nothing and is not an error. Prints the counts as JSON.')
    .requiredOption('--site <id>', 'the site (its id, a UUID)')
    .option('--visitor <id>', 'the SDK\'s visitor id (vid)')
    .option('--user-ref <ref>', 'the id your app gave the person with identify()')
    .action(async (opts: PrivacyOptions) => {
      const { runPrivacy } = await import('./cli/privacy.ts');
      await runPrivacy(action, opts, () => loadConfig(), systemClock, (message) => new UsageError(message));
    });
}

program.command('mcp')
  .description(`Speak MCP (Model Context Protocol) over stdio, for assistants that launch a command: each message goes to the Mallard at MALLARD_URL (default ${DEFAULT_MALLARD_URL}, local or remote) as POST /v1/mcp with MALLARD_MCP_KEY (an MCP key, a secret key with mcp:read or query:read, or a user token); MALLARD_SITE_ID names the site for an org-level credential. stdout carries only JSON-RPC; every other line goes to stderr. A bad key or an unreachable server exits 1 before the first message.`)
  .action(async () => {
    await runBridge({ ...bridgeSettings(process.env), log: (line) => console.error(line) });
  });

/** The SQLite file of DATABASE_URL, or exit 2 with the PostgreSQL way of doing it. */
function sqliteFileFor(command: 'backup' | 'restore'): string {
  const config = loadConfig();
  const { dialect, target } = parseDatabaseUrl(config.databaseUrl);
  if (dialect === 'postgres') {
    console.error(command === 'backup'
      ? 'mallard: on PostgreSQL, back up with pg_dump, e.g.: pg_dump --format=custom --file=mallard.dump "$DATABASE_URL"'
      : 'mallard: on PostgreSQL, restore with pg_restore into a stopped deployment, e.g.: pg_restore --clean --if-exists --dbname="$DATABASE_URL" mallard.dump');
    process.exit(2);
  }
  if (target === ':memory:') throw new UsageError('DATABASE_URL is an in-memory store: nothing to back up or restore');
  return target;
}

program.command('backup')
  .description('Copy the SQLite store of DATABASE_URL to a file while Mallard runs (SQLite\'s online backup: consistent, every committed write up to that moment), then check the copy. On PostgreSQL, prints the pg_dump way and exits 2. Keep MALLARD_SECRET (or data/secret) with the backup: sealed secrets need it.')
  .requiredOption('--to <file>', 'the backup file to write (refused if it exists, unless --force)')
  .option('--force', 'overwrite an existing file')
  .action(async (opts: { to: string; force?: boolean }) => {
    const source = sqliteFileFor('backup');
    const { backupSqlite } = await import('./store/backup.ts');
    const result = await backupSqlite(source, opts.to, { force: opts.force });
    console.log(`Backed up ${source} to ${opts.to} (${result.bytes} bytes; schema ${result.migrations.at(-1) ?? 'empty'})`);
  });

program.command('restore')
  .description('Replace the SQLite store of DATABASE_URL with a backup, with Mallard stopped: checks the backup (intact, a schema this version knows), keeps the replaced store beside it as <file>.before-restore-<time>, and swaps files atomically. The next start applies any newer migrations. On PostgreSQL, prints the pg_restore way and exits 2.')
  .requiredOption('--from <file>', 'the backup file (made by `mallard backup`)')
  .option('--force', 'restore even though the store looks in use (its -wal file exists)')
  .action(async (opts: { from: string; force?: boolean }) => {
    const target = sqliteFileFor('restore');
    const { restoreSqlite } = await import('./store/backup.ts');
    const result = restoreSqlite(opts.from, target, { force: opts.force });
    console.log(`Restored ${opts.from} into ${target} (schema ${result.migrations.at(-1) ?? 'empty'})${result.previous ? `; the replaced store is kept as ${result.previous}` : ''}`);
  });

program.command('migrate')
  .description('Apply pending schema migrations to DATABASE_URL (safe to run again).')
  .action(async () => {
    const config = loadConfig();
    const store = openStore(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
    try {
      const applied = await migrateToLatest(store.db);
      console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
    } finally {
      await store.close();
    }
  });

program.command('bootstrap')
  .description('Create an org with its first site, an owner user and three site-scoped keys (secret, mcp, publishable).')
  .requiredOption('--org <name>', 'org name')
  .requiredOption('--site-name <name>', 'first site name')
  .requiredOption('--site-url <url>', 'first site URL (http or https)')
  .requiredOption('--email <email>', 'owner email')
  .requiredOption('--password <password>', `owner password (${PASSWORD_MIN} to ${PASSWORD_MAX} characters)`)
  .addOption(new Option('--json', 'print {org_id, site_id, user_id, email, keys: {secret, mcp, publishable}} as JSON'))
  .action(async (opts: { org: string; siteName: string; siteUrl: string; email: string; password: string; json?: boolean }) => {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(opts.email) || opts.email.length > 254) throw new UsageError(`--email is not a valid email address: ${opts.email}`);
    if (opts.password.length < PASSWORD_MIN || opts.password.length > PASSWORD_MAX) {
      throw new UsageError(`--password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
    }
    const config = loadConfig();
    const store = openStore(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
    try {
      await migrateToLatest(store.db);
      const { bootstrapOrg } = await import('./features/orgs/bootstrap.ts');
      const result = await bootstrapOrg(store, new Secrets(config.secret), {
        org: opts.org, siteName: opts.siteName, siteUrl: opts.siteUrl, email: opts.email, password: opts.password,
      }, systemClock.now());
      if (opts.json) {
        console.log(JSON.stringify(result));
      } else {
        console.log([
          `Org ${result.org_id}, site ${result.site_id}, owner ${result.email}`,
          'Keys (shown once, store them now):',
          `  secret       ${result.keys.secret}`,
          `  mcp          ${result.keys.mcp}`,
          `  publishable  ${result.keys.publishable}`,
        ].join('\n'));
      }
    } finally {
      await store.close();
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (or the help text).
    process.exit(err.exitCode);
  }
  const message = err instanceof ConfigError || err instanceof UsageError || err instanceof AppError || err instanceof BridgeError || (err as Error)?.name === 'BackupError'
    ? (err as Error).message
    : `unexpected failure: ${(err as Error).message}`;
  console.error(`mallard: ${message}`);
  process.exit(1);
}
