// Schema pieces shared by many routes, defined once.
import { Type, type TSchema } from '@sinclair/typebox';

export const Uuid = Type.String({ description: 'UUID', examples: ['01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f'] });
export const IsoTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC', examples: ['2026-11-02T12:00:00.000Z'] });
export const NullableIsoTime = Type.Union([IsoTime, Type.Null()]);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A name-like string: trimmed by the service, never empty, bounded. */
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL' });

/** The `site_id` every site route takes (query string or body). */
export const SiteIdParam = Type.String({
  maxLength: 64,
  description: 'The site (a UUID). A site-scoped key may omit it (its own site is used); org-level credentials must give it',
});

export const SiteIdQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const PagingQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'How many records to skip (0 to 1000000, default 0)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Most records returned (1 to 200, default 50)' })),
};

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });
