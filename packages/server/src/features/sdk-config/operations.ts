// A site's SDK config on /manage, per environment: read by any user or manage key, changed by an
// admin. The public, browser-safe GET /v1/sdk-config (a publishable key in the URL, open CORS,
// cacheable) is not an operation of the catalog: it stays a route of its own (routes.ts).
import { defineOperation } from '../../domain/operation.ts';
import { SdkConfigPatch, SdkConfigRecord } from '../../domain/sdk-config.ts';
import { EnvironmentParams, SdkConfigList, SdkConfigSiteQuery } from './schemas.ts';
import { listConfigs, patchConfig } from './service.ts';

export const listSdkConfigsOp = defineOperation({
  name: 'sdk_config.list',
  summary: 'The site\'s SDK config, per environment',
  access: { scopes: ['manage:write'], role: 'viewer' },
  http: { method: 'GET', path: '/manage/sdk-config', surface: 'manage', tags: ['sdk-config'] },
  input: { query: SdkConfigSiteQuery },
  output: SdkConfigList,
  run: (ctx, input) => listConfigs({ ctx, input }),
});

export const patchSdkConfigOp = defineOperation({
  name: 'sdk_config.update',
  summary: 'Change settings of one environment (a key set to null is removed)',
  access: { scopes: ['manage:write'], role: 'admin' },
  http: { method: 'PATCH', path: '/manage/sdk-config/:environment', surface: 'manage', tags: ['sdk-config'] },
  input: { params: EnvironmentParams, query: SdkConfigSiteQuery, body: SdkConfigPatch },
  output: SdkConfigRecord,
  write: { idempotent: true },
  run: (ctx, input) => patchConfig({ ctx, input }),
});

export const SDK_CONFIG_OPERATIONS = [listSdkConfigsOp, patchSdkConfigOp];
