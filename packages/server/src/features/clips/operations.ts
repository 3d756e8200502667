// The clip reads of the query surface: friction clips, one clip with its rrweb events, and the
// latest snapshot of a page; and a site's clip settings and totals on /manage, for the settings
// screen (they are changed by PATCH /v1/manage/site/{id}).
import { Type } from '@sinclair/typebox';
import { partOf } from '../../domain/context.ts';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { SiteIdQuery } from '../../domain/schema-parts.ts';
import { getClip, listClips, pageSnapshot } from './queries.ts';
import { ClipDetail, ClipIdParams, ClipList, ClipsQuery, ClipUsage, PageSnapshot, PageSnapshotQuery } from './schemas.ts';
import { clipUsage } from './usage.ts';

export const listClipsOp = defineOperation({
  name: 'clips.list',
  summary: 'Friction clips of a site, newest first, filtered by issue, session, page, signal type, device and time',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/clips', surface: 'query', tags: ['query'] },
  input: { query: ClipsQuery },
  output: ClipList,
  run: (ctx, input) => listClips({ ctx, input }),
});

export const clipOp = defineOperation({
  name: 'clips.get',
  summary: 'One friction clip with its rrweb events',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/clips/:id', surface: 'query', tags: ['query'] },
  input: { params: ClipIdParams, query: SiteIdQuery },
  output: ClipDetail,
  run: (ctx, input) => getClip({ ctx, input }),
});

export const pageSnapshotOp = defineOperation({
  name: 'clips.page_snapshot',
  summary: 'The latest snapshot of a page on a device class (the rrweb FullSnapshot event), for drawing heatmaps over the page; 404 when none was taken',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/page-snapshot', surface: 'query', tags: ['query'] },
  input: { query: PageSnapshotQuery },
  output: PageSnapshot,
  run: (ctx, input) => pageSnapshot({ ctx, input }),
});

export const clipUsageOp = defineOperation({
  name: 'clips.usage',
  summary: 'A site\'s clip retention, daily byte budget and totals (clips, snapshots, bytes, today\'s bytes against the budget)',
  access: { scopes: ['manage:write'], role: 'viewer' },
  http: { method: 'GET', path: '/manage/site/:id/clips', surface: 'manage', tags: ['sites'] },
  input: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) },
  output: ClipUsage,
  run: (ctx, input) => clipUsage({ ctx, input, maxRetentionDays: partOf(ctx, 'config').retentionDays }),
});

export const CLIP_OPERATIONS = [listClipsOp, clipOp, pageSnapshotOp, clipUsageOp];
