import { Type } from '@sinclair/typebox';
import { SiteIdParam } from '../../domain/schema-parts.ts';

export const CreateAnnotationBody = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  message: Type.String({ minLength: 1, maxLength: 2000, description: 'The note shown on the timeline (1 to 2000 characters)' }),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'A page path it concerns, e.g. /checkout (default: the whole site)' })),
}, { additionalProperties: false });
