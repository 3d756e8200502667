// Who a credential is: GET /v1/query/whoami answers the credential alone; an assistant asks
// for the sites it can read too.
import { Type } from '@sinclair/typebox';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { SiteEntry } from '../sites/operations.ts';
import { siteDirectory } from '../sites/service.ts';
import { Whoami } from './schemas.ts';
import { whoami } from './service.ts';

export const whoamiOp = defineOperation({
  name: 'whoami.get',
  summary: 'The calling credential: org, site, type and scopes',
  // Open during a required 2FA enrolment: the dashboard learns from it that the user must enrol.
  access: { ...READ_ACCESS, duringMfaEnrolment: true },
  http: { method: 'GET', path: '/query/whoami', surface: 'query', tags: ['query'] },
  input: {},
  output: Whoami,
  run: async (ctx) => whoami({ ctx }),
});

export const whoamiWithSitesOp = defineOperation({
  name: 'whoami.with_sites',
  summary: 'Who this credential is (org, own site, type, scopes, role) and the sites it can read',
  access: READ_ACCESS,
  input: {},
  output: Type.Composite([Whoami, Type.Object({ sites: Type.Array(SiteEntry, { description: 'The sites this credential can read (as list_sites)' }) })]),
  run: async (ctx) => ({ ...whoami({ ctx }), sites: await siteDirectory({ ctx }) }),
});

export const WHOAMI_OPERATIONS = [whoamiOp, whoamiWithSitesOp];
