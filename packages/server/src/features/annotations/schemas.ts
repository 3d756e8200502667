import { Type } from '@sinclair/typebox';

export const CreateAnnotationBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  message: Type.String({ minLength: 1, maxLength: 2000 }),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
}, { additionalProperties: false });
