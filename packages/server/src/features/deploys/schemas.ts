import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PagingQuery, Uuid } from '../../domain/schema-parts.ts';

export const CreateDeployBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  version: Type.String({ minLength: 1, maxLength: 128 }),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' })),
  deployed_at: Type.Optional(Type.String({ format: 'date-time' })),
  commit_sha: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  author: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  pr_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
}, { additionalProperties: false, examples: [{ version: 'v2.4.1', environment: 'production', commit_sha: '9fceb02d0ae598e95dc970b74767f19372d61af8', author: 'ci', description: 'Checkout redesign' }] });
export type CreateDeployBody = Static<typeof CreateDeployBody>;

export const ListDeploysQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  environment: Type.Optional(Type.String({ maxLength: 64 })),
  ...PagingQuery,
});

export const RelatedIssue = Type.Object({
  id: Uuid, title: Type.String(), page: Type.String(), type: Type.String(), severity: Type.String(), status: Type.String(),
  relation: Type.String({ description: 'verification (a record against this deploy) or appeared_after (first seen within 48 hours after it)' }),
  verification_result: Nullable(Type.String()),
});
