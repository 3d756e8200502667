// The integration operations' schemas.
import { Type, type Static } from '@sinclair/typebox';
import { PROVIDERS } from '../../domain/integrations.ts';
import { IsoTime, Uuid } from '../../domain/schema-parts.ts';

export const IntegrationRecord = Type.Object({
  id: Uuid, site_id: Uuid, provider: Type.String(), config: Type.Record(Type.String(), Type.String({ description: 'credentials masked' }), { description: 'The provider\'s settings, by field; which fields depends on the provider' }),
  created_at: IsoTime, updated_at: IsoTime,
});

export const ListIntegrationsQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });
export const IntegrationParams = Type.Object({ id: Type.String() });

export const ConnectIntegrationBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  provider: Type.Union(PROVIDERS.map((p) => Type.Literal(p))),
  config: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown()),
}, { additionalProperties: false });
export type ConnectIntegrationBody = Static<typeof ConnectIntegrationBody>;

export const IntegrationList = Type.Object({ integrations: Type.Array(IntegrationRecord) });
