// The sites a credential can read, with the ids an org-level credential passes as site_id.
import { Type } from '@sinclair/typebox';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { Uuid } from '../../domain/schema-parts.ts';
import { siteDirectory } from './service.ts';

export const SiteEntry = Type.Object({ id: Uuid, name: Type.String(), url: Type.String() });

export const siteDirectoryOp = defineOperation({
  name: 'sites.directory',
  summary: 'The sites this credential can read: id, name and url',
  access: READ_ACCESS,
  input: {},
  output: Type.Object({ sites: Type.Array(SiteEntry), total: Type.Integer() }),
  run: async (ctx) => {
    const sites = await siteDirectory({ ctx });
    return { sites, total: sites.length };
  },
});

export const SITE_OPERATIONS = [siteDirectoryOp];
