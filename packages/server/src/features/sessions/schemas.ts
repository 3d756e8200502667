import { Type } from '@sinclair/typebox';

export const SessionQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  session_id: Type.String({ maxLength: 64, description: '32 hexadecimal characters' }),
});
