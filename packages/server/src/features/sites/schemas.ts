import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, IsoTime, Name, Uuid } from '../../domain/schema-parts.ts';

const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 50, description: 'Origins allowed to send ingest batches; empty allows any' });

export const SiteRecord = Type.Object({
  id: Uuid,
  org_id: Uuid,
  name: Type.String(),
  url: Type.String(),
  allowed_origins: Type.Array(Type.String()),
  created_at: IsoTime,
  updated_at: IsoTime,
});
export type SiteRecord = Static<typeof SiteRecord>;

export const CreateSiteBody = Type.Object({
  name: Name,
  url: HttpUrl,
  allowed_origins: Type.Optional(Origins),
}, { additionalProperties: false, examples: [{ name: 'Shop', url: 'https://shop.example', allowed_origins: ['https://shop.example'] }] });
export type CreateSiteBody = Static<typeof CreateSiteBody>;

export const UpdateSiteBody = Type.Object({
  name: Type.Optional(Name),
  url: Type.Optional(HttpUrl),
  allowed_origins: Type.Optional(Origins),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateSiteBody = Static<typeof UpdateSiteBody>;

export const SiteParams = Type.Object({ id: Type.String() });
