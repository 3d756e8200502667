// The funnel operations: an ad-hoc funnel report, the saved funnels (read by any member of the
// org, viewers included, written by admins, as alert rules are), and a funnel as an assistant
// asks for it (steps or a saved funnel_id in one call).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../domain/errors.ts';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { Deleted, SiteIdParam, SiteIdQuery } from '../../domain/schema-parts.ts';
import { funnelReport } from './funnel-report.ts';
import { CreateFunnelBody, Funnel, FunnelList, FunnelParams, FunnelQuery, SavedFunnel, StepList, UpdateFunnelBody, WindowMinutes } from './schemas.ts';
import { createFunnel, deleteFunnel, getFunnel, listFunnels, updateFunnel } from './service.ts';
import { DEFAULT_WINDOW_MINUTES } from './steps.ts';

const FUNNEL_WRITE = { scopes: ['manage:write'], role: 'admin' } as const;

export const funnelReportOp = defineOperation({
  name: 'funnels.report',
  summary: 'An ad-hoc funnel: per ordered step, who entered, who went on, the median time to the next step and the friction met there',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/funnel', surface: 'query', tags: ['query'] },
  input: { query: FunnelQuery },
  output: Funnel,
  run: (ctx, input) => funnelReport({ ctx, input }),
});

export const listFunnelsOp = defineOperation({
  name: 'funnels.list',
  summary: "List the site's saved funnels",
  access: { ...FUNNEL_WRITE, role: 'viewer' },
  http: { method: 'GET', path: '/manage/funnels', surface: 'manage', tags: ['funnels'] },
  input: { query: SiteIdQuery },
  output: FunnelList,
  run: (ctx, input) => listFunnels({ ctx, input }),
});

export const createFunnelOp = defineOperation({
  name: 'funnels.create',
  summary: 'Save a funnel',
  access: FUNNEL_WRITE,
  http: { method: 'POST', path: '/manage/funnels', surface: 'manage', tags: ['funnels'], status: 201 },
  input: { body: CreateFunnelBody },
  output: SavedFunnel,
  write: { idempotent: false },
  run: (ctx, input) => createFunnel({ ctx, input }),
});

export const updateFunnelOp = defineOperation({
  name: 'funnels.update',
  summary: 'Change a saved funnel (partial)',
  access: FUNNEL_WRITE,
  http: { method: 'PATCH', path: '/manage/funnels/:id', surface: 'manage', tags: ['funnels'] },
  input: { params: FunnelParams, body: UpdateFunnelBody },
  output: SavedFunnel,
  write: { idempotent: true },
  run: (ctx, input) => updateFunnel({ ctx, input }),
});

export const deleteFunnelOp = defineOperation({
  name: 'funnels.delete',
  summary: 'Delete a saved funnel',
  access: FUNNEL_WRITE,
  http: { method: 'DELETE', path: '/manage/funnels/:id', surface: 'manage', tags: ['funnels'] },
  input: { params: FunnelParams },
  output: Deleted,
  write: { idempotent: true },
  run: (ctx, input) => deleteFunnel({ ctx, input }),
});

export const GetFunnelInput = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  steps: Type.Optional(Type.Union([
    Type.String({ minLength: 1, maxLength: 5200 }),
    StepList,
  ], { description: '2 to 10 ordered steps, as a comma-separated string or an array: a step starting with / is a page pattern (* matches any run of characters), anything else a custom event name. Give steps or funnel_id' })),
  funnel_id: Type.Optional(Type.String({ maxLength: 64, description: 'A saved funnel (GET /v1/manage/funnels): its steps and window are used. Give steps or funnel_id' })),
  window_minutes: Type.Optional(Type.Integer({ ...WindowMinutes, description: `${WindowMinutes.description}; with funnel_id, the saved funnel's window unless given` })),
  ...ReadFilterQuery,
});

/** A funnel as an assistant asks for it: ad-hoc steps, or a saved funnel (its window unless one is given) (the MCP tool get_funnel). */
export const funnelOp = defineOperation({
  name: 'funnels.get',
  summary: 'A funnel (ad-hoc steps or a saved funnel_id): per step who went on, how fast, and the friction where they dropped',
  access: READ_ACCESS,
  input: { query: GetFunnelInput },
  output: Type.Object({ ...Funnel.properties, funnel: Type.Optional(SavedFunnel) }),
  run: async (ctx, input): Promise<Funnel & { funnel?: SavedFunnel }> => {
    const filters = { device: input.device, from: input.from, to: input.to };
    if ((input.steps === undefined) === (input.funnel_id === undefined)) {
      throw new AppError('invalid_input', 'steps: give either steps or funnel_id', { field: 'steps', reason: 'give either steps or funnel_id' });
    }
    if (input.funnel_id !== undefined) {
      // The saved funnel's window unless the call gives one: one report either way.
      const funnel = await getFunnel({ ctx, input: { id: input.funnel_id } });
      const report = await funnelReport({ ctx, input: { site_id: funnel.site_id, steps: funnel.steps, window_minutes: input.window_minutes ?? funnel.window_minutes, ...filters } });
      return { funnel, ...report };
    }
    return funnelReport({ ctx, input: { site_id: input.site_id, steps: input.steps!, window_minutes: input.window_minutes ?? DEFAULT_WINDOW_MINUTES, ...filters } });
  },
});

export const FUNNEL_OPERATIONS = [funnelReportOp, listFunnelsOp, createFunnelOp, updateFunnelOp, deleteFunnelOp, funnelOp];
