// Who a connection is, with the sites it can read (what an assistant asks; GET /v1/query/whoami
// answers the credential alone, routes.ts).
import { Type } from '@sinclair/typebox';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { SiteEntry } from '../sites/operations.ts';
import { siteDirectory } from '../sites/service.ts';
import { Whoami } from './schemas.ts';
import { whoami } from './service.ts';

export const whoamiWithSitesOp = defineOperation({
  name: 'whoami.with_sites',
  summary: 'Who this credential is (org, own site, type, scopes, role) and the sites it can read',
  access: READ_ACCESS,
  input: {},
  output: Type.Composite([Whoami, Type.Object({ sites: Type.Array(SiteEntry, { description: 'The sites this credential can read (as list_sites)' }) })]),
  run: async (ctx) => ({ ...whoami({ ctx }), sites: await siteDirectory({ ctx }) }),
});

export const WHOAMI_OPERATIONS = [whoamiWithSitesOp];
