import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, IsoTime, Name, Uuid } from '../../domain/schema-parts.ts';
import { DEFAULT_CLIP_DAILY_BYTES, DEFAULT_CLIP_RETENTION_DAYS, MAX_CLIP_DAILY_BYTES, MAX_CLIP_RETENTION_DAYS } from '../../domain/clips.ts';

const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 50, description: 'Origins allowed to send ingest batches; empty allows any' });

export const SiteRecord = Type.Object({
  id: Uuid,
  org_id: Uuid,
  name: Type.String(),
  url: Type.String(),
  allowed_origins: Type.Array(Type.String()),
  retention_days: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Days the site\'s raw data (events, signals, sessions) is kept; null: the instance\'s MALLARD_RETENTION_DAYS' }),
  effective_retention_days: Type.Integer({ minimum: 1, description: 'The period the retention job applies: retention_days, or the instance\'s maximum' }),
  max_retention_days: Type.Integer({ minimum: 1, description: 'The instance\'s MALLARD_RETENTION_DAYS: the most retention_days may be' }),
  clip_retention_days: Type.Integer({ minimum: 1, description: `Days friction clips and page snapshots are kept (default ${DEFAULT_CLIP_RETENTION_DAYS}), never longer than the raw data` }),
  clip_daily_bytes: Type.Integer({ minimum: 0, description: `The daily (UTC) byte budget of clip and snapshot uploads, compressed as stored (default ${DEFAULT_CLIP_DAILY_BYTES}, 50 MiB)` }),
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
  retention_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], { description: 'Keep this site\'s raw data for fewer days than the instance does (1 to MALLARD_RETENTION_DAYS; a larger value is 400 invalid_input); null: the instance\'s period' })),
  clip_retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CLIP_RETENTION_DAYS, description: `Days clips and snapshots are kept (1 to ${MAX_CLIP_RETENTION_DAYS}; the raw data's period applies when shorter)` })),
  clip_daily_bytes: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CLIP_DAILY_BYTES, description: `The daily byte budget of clips and snapshots (0 to ${MAX_CLIP_DAILY_BYTES}; 0 stores none)` })),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateSiteBody = Static<typeof UpdateSiteBody>;

export const SiteParams = Type.Object({ id: Type.String() });
