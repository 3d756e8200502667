// The operator at the terminal (`mallard keys`, `mallard privacy`): whoever runs the CLI on the
// server holds the store and MALLARD_SECRET, so a command acts as an owner of the org it names
// (domain/context.ts, operatorAuth) and runs the catalog's operations through the runner like
// every other face. These find the org a command names (by a site, a key or its id) and make
// the call's service context.
import type { Kysely } from 'kysely';
import { operatorAuth, type Log, type AppServices, type ServiceContext } from '../../domain/context.ts';
import type { Database } from '../../store/tables.ts';

export interface OperatorOrg { id: string; name: string }

/** The org of a live site, or undefined (no such site, or deleted). */
export const orgOfSite = (db: Kysely<Database>, siteId: string): Promise<OperatorOrg | undefined> => db.selectFrom('sites')
  .innerJoin('orgs', 'orgs.id', 'sites.org_id').select(['orgs.id', 'orgs.name'])
  .where('sites.id', '=', siteId).where('sites.deleted_at', 'is', null).executeTakeFirst();

/** The org of a key, revoked or not, or undefined. */
export const orgOfKey = (db: Kysely<Database>, keyId: string): Promise<OperatorOrg | undefined> => db.selectFrom('api_keys')
  .innerJoin('orgs', 'orgs.id', 'api_keys.org_id').select(['orgs.id', 'orgs.name']).where('api_keys.id', '=', keyId).executeTakeFirst();

/** One org by id, or every org, by id. */
export function orgsById(db: Kysely<Database>, orgId?: string): Promise<OperatorOrg[]> {
  let query = db.selectFrom('orgs').select(['id', 'name']);
  if (orgId !== undefined) query = query.where('id', '=', orgId);
  return query.orderBy('id').execute();
}

/** The terminal's log: stdout is the command's answer, so warnings and errors go to stderr, one JSON line each. */
const stderrLog: Log = {
  info() {},
  warn: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg, ...obj })}\n`),
  error: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'error', msg, ...obj, ...('err' in obj && obj.err instanceof Error ? { err: obj.err.message } : {}) })}\n`),
};

/** The service context of one command in one org: no request (its audit rows carry none), the process's parts it has. */
export function operatorContext(db: Kysely<Database>, org: OperatorOrg, now: number, parts: Partial<AppServices>): ServiceContext {
  return { auth: operatorAuth(org), db, now, requestId: 'cli', log: stderrLog, parts };
}
