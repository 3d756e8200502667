// The shapes of the /manage SDK config operations (the public GET /v1/sdk-config keeps its own, in routes.ts).
import { Type } from '@sinclair/typebox';
import { SdkConfigRecord } from '../../domain/sdk-config.ts';

export const SdkConfigSiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });

// As the service checks it (ENVIRONMENT_PATTERN), so the document says the real limit.
export const EnvironmentParams = Type.Object({ environment: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: '1 to 64 letters, digits, dots, dashes or underscores' }) });

export const SdkConfigList = Type.Object({ site_id: Type.String(), environments: Type.Array(SdkConfigRecord) });
