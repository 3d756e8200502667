// The tables /query/raw exposes and, per table, the columns a client may see and sort by.
// This is an allow-list: internal columns (dedupe keys, fingerprints, secrets) never leave,
// and a column added to a table later stays hidden until it is listed here.
import { Type, type TObject, type TSchema, type TUnknown } from '@sinclair/typebox';

export type ColumnKind = 'text' | 'number' | 'time' | 'json' | 'flag';

export interface RawTable { columns: Record<string, ColumnKind>; defaultSort: string }

export const RAW_TABLES = {
  events: {
    defaultSort: 'occurred_at',
    columns: {
      id: 'text', sid: 'text', visitor_id: 'text', type: 'text', page: 'text', occurred_at: 'time', received_at: 'time',
      name: 'text', signal_type: 'text', element: 'text', label: 'text', props: 'json', referrer_page: 'text', environment: 'text',
    },
  },
  signals: {
    defaultSort: 'occurred_at',
    columns: {
      id: 'text', event_id: 'text', sid: 'text', visitor_id: 'text', signal_type: 'text', page: 'text', element: 'text', label: 'text',
      confidence: 'number', occurred_at: 'time', rx: 'number', ry: 'number', vx: 'number', vy: 'number', environment: 'text',
    },
  },
  sessions: {
    defaultSort: 'last_seen_at',
    columns: {
      id: 'text', sid: 'text', visitor_id: 'text', user_ref: 'text', environment: 'text', first_seen_at: 'time', last_seen_at: 'time',
      entry_page: 'text', exit_page: 'text', pages: 'json', page_count: 'number', event_count: 'number', signal_count: 'number',
      signal_counts: 'json', device_type: 'text', browser: 'text', os: 'text', viewport_bucket: 'text', app_version: 'text',
      referrer_host: 'text', converted: 'flag',
    },
  },
  page_scores: {
    defaultSort: 'score',
    columns: {
      id: 'text', page: 'text', score: 'number', raw_score: 'number', trend: 'text', deviation: 'number', duck_state: 'text',
      dominant_signal: 'text', breakdown: 'json', active_users: 'number', affected_users: 'number', frustrated_users: 'number',
      signal_count: 'number', window_start: 'time', window_end: 'time', stale: 'flag', computed_at: 'time', first_seen_at: 'time',
    },
  },
  score_history: {
    defaultSort: 'cycle_at',
    columns: {
      id: 'text', page: 'text', cycle_at: 'time', score: 'number', raw_score: 'number', deviation: 'number', trend: 'text',
      active_users: 'number', affected_users: 'number', breakdown: 'json',
    },
  },
  ux_issues: {
    defaultSort: 'last_seen_at',
    columns: {
      id: 'text', title: 'text', page: 'text', element_selector: 'text', element_label: 'text', type: 'text', severity: 'text',
      severity_score: 'number', status: 'text', assigned_to: 'text', signal_count: 'number', session_count: 'number',
      user_count: 'number', first_seen_at: 'time', last_seen_at: 'time', resolved_at: 'time', created_at: 'time', updated_at: 'time',
    },
  },
  deploys: {
    defaultSort: 'deployed_at',
    columns: {
      id: 'text', version: 'text', environment: 'text', deployed_at: 'time', commit_sha: 'text', author: 'text',
      pr_number: 'number', provider: 'text', url: 'text', description: 'text', confusion_before: 'number',
      confusion_after: 'number', delta: 'number', created_at: 'time',
    },
  },
  alerts: {
    defaultSort: 'fired_at',
    columns: {
      id: 'text', rule_id: 'text', trigger_type: 'text', page: 'text', severity: 'text', status: 'text', message: 'text',
      score_before: 'number', score_after: 'number', condition_value: 'number', threshold: 'number', fired_at: 'time',
      acknowledged_at: 'time', investigating_at: 'time', resolved_at: 'time', resolved_reason: 'text', created_at: 'time',
      updated_at: 'time',
    },
  },
} as const satisfies Record<string, RawTable>;

export type RawTableName = keyof typeof RAW_TABLES;
export const RAW_TABLE_NAMES = Object.keys(RAW_TABLES) as RawTableName[];

/**
 * The schema of a table's rows as serializeRow writes them, for routes that return such rows:
 * it must describe every exposed column (the compiler checks), so a column listed here later
 * cannot be silently dropped by the serializer.
 */
export const rowSchema = <T extends RawTable>(_table: T, columns: { [K in keyof T['columns']]: TSchema }, description?: string) =>
  // Typed as serializeRow's answer (a record), which is what the routes hand over.
  Type.Object(columns as Record<string, TSchema>, description ? { description } : {}) as unknown as TObject<Record<string, TUnknown>>;

export function serializeRow(table: RawTable, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, kind] of Object.entries(table.columns)) {
    const value = row[column];
    if (value === null || value === undefined) out[column] = null;
    else if (kind === 'time') out[column] = new Date(Number(value)).toISOString();
    else if (kind === 'json') out[column] = JSON.parse(String(value));
    else if (kind === 'flag') out[column] = value === 1 || value === true;
    else out[column] = value;
  }
  return out;
}
