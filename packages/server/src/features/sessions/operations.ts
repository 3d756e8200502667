// The session operations: one session with its narrative, and the sessions search.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { SessionQuery, SessionSearchList, SessionsSearchQuery, SessionTimeline } from './schemas.ts';
import { searchSessions } from './session-search.ts';
import { sessionTimeline } from './session-timeline.ts';

export const sessionOp = defineOperation({
  name: 'sessions.get',
  summary: 'One session: timing, device, pages, signal counts, every event and a narrative',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/session', surface: 'query', tags: ['query'] },
  input: { query: SessionQuery },
  output: SessionTimeline,
  run: (ctx, input) => sessionTimeline({ ctx, input }),
});

export const searchSessionsOp = defineOperation({
  name: 'sessions.search',
  summary: 'Sessions of a window (default the last 7 days), filtered by page pattern, signal type, issue, device, browser, conversion and friction; by friction weight by default',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/sessions', surface: 'query', tags: ['query'] },
  input: { query: SessionsSearchQuery },
  output: SessionSearchList,
  run: (ctx, input) => searchSessions({ ctx, input }),
});

export const SESSION_OPERATIONS = [sessionOp, searchSessionsOp];
