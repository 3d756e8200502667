// The `mallard` CLI. Every command has --help; bad arguments exit non-zero with one line.
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { Secrets } from './auth/secrets.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './auth/passwords.ts';
import { AppError } from './http/errors.ts';
import { openStore } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { startServer } from './server.ts';
import { bootstrapOrg } from './features/orgs/bootstrap.ts';

class UsageError extends Error {}

const program = new Command()
  .name('mallard')
  .description('Mallard: self-hostable confusion analytics. Configuration comes from environment variables (see README).')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

program.command('serve')
  .description('Run the HTTP API (migrates the store first). Listens on HOST:PORT (default 127.0.0.1:8787).')
  .action(async () => {
    const config = loadConfig();
    const server = await startServer(config, systemClock);
    server.app.log.info(`Mallard listening on ${server.url}`);
    const shutdown = (signal: string) => {
      server.app.log.info(`${signal} received, shutting down`);
      server.stop().then(() => process.exit(0), (err) => {
        console.error(`mallard: shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      });
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });

program.command('migrate')
  .description('Apply pending schema migrations to DATABASE_URL (safe to run again).')
  .action(async () => {
    const config = loadConfig();
    const store = openStore(config.databaseUrl);
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
    const store = openStore(config.databaseUrl);
    try {
      await migrateToLatest(store.db);
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
  const message = err instanceof ConfigError || err instanceof UsageError || err instanceof AppError
    ? (err as Error).message
    : `unexpected failure: ${(err as Error).message}`;
  console.error(`mallard: ${message}`);
  process.exit(1);
}
