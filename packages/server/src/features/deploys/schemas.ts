// The deploy routes' inputs and answers; the services (and the MCP tools) take and return the
// same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Nullable, NullableIsoTime, PagingQuery, Uuid, SiteIdParam } from '../../domain/schema-parts.ts';
import { DeployRecord } from '../../domain/records/deploy.ts';

export const CreateDeployBody = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  version: Type.String({ minLength: 1, maxLength: 128, description: 'The version deployed, e.g. v2.4.1 (1 to 128 characters)' }),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'Letters, digits, _ . - (up to 64); default production, the environment that drives issue verification' })),
  deployed_at: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 time of the deploy: not in the future, at most 48 hours ago (default now)' })),
  commit_sha: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The commit deployed (up to 64 characters)' })),
  author: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Who deployed (up to 200 characters)' })),
  pr_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'The pull request number' })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The CI or hosting provider, e.g. github-actions' })),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) link to the deploy or its run' })),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'What changed (up to 2000 characters)' })),
}, { additionalProperties: false, examples: [{ version: 'v2.4.1', environment: 'production', commit_sha: '9fceb02d0ae598e95dc970b74767f19372d61af8', author: 'ci', description: 'Checkout redesign' }] });
export type CreateDeployBody = Static<typeof CreateDeployBody>;

export const ListDeploysQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  environment: Type.Optional(Type.String({ maxLength: 64, description: 'Only deploys to this environment (default: all)' })),
  ...PagingQuery,
});

export const DeployParams = Type.Object({ deploy_id: Type.String({ description: 'The deploy id (a UUID)' }) });
export const DeploySiteQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const RelatedIssue = Type.Object({
  id: Uuid, title: Type.String(), page: Type.String(), type: Type.String(), severity: Type.String(), status: Type.String(),
  relation: Type.String({ description: 'verification (a record against this deploy) or appeared_after (first seen within 48 hours after it)' }),
  verification_result: Nullable(Type.String()),
});

export const DeployList = Type.Object({ deploys: Type.Array(DeployRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });
export const DeployDetail = Type.Intersect([DeployRecord, Type.Object({ related_issues: Type.Array(RelatedIssue) })]);

export const CheckDeployQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  deploy_id: Type.Optional(Type.String({ maxLength: 64, description: 'The deploy id (a UUID); default the latest deploy of the environment' })),
  environment: Type.String({ minLength: 1, maxLength: 64, default: 'production', description: 'Without deploy_id: check the latest deploy to this environment (default production); with deploy_id, that deploy whatever its environment' }),
});

const Verdict = <T extends readonly string[]>(words: T) => Type.Union(words.map((w) => Type.Literal(w)));

export const DeployCheck = Type.Object({
  deploy: Type.Object({
    id: Uuid, version: Type.String(), environment: Type.String(), deployed_at: IsoTime,
    confusion_before: Type.Number(), confusion_after: Nullable(Type.Number()), delta: Nullable(Type.Number()), after_computed_at: NullableIsoTime,
  }),
  verdict: Verdict(['PASS', 'WARN', 'FAIL', 'PENDING'] as const),
  reasons: Type.Array(Type.String()),
  thresholds: Type.Object({ warn_delta: Type.Number(), fail_delta: Type.Number() }),
  pages: Type.Array(Type.Object({
    page: Type.String(), before: Nullable(Type.Number()), after: Type.Number(), delta: Type.Number(),
    verdict: Verdict(['PASS', 'WARN', 'FAIL'] as const), reason: Type.String(),
  }), { description: 'Each page scored after the deploy, biggest rise first' }),
  new_critical_issues: Type.Array(RelatedIssue),
  new_high_issues: Type.Array(RelatedIssue, { description: 'High-severity issues first seen within 48 hours after the deploy: each is a WARN reason' }),
});
