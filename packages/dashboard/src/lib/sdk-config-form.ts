// The SDK config form's model: one control per setting of PATCH /v1/manage/sdk-config/{env}
// (the server's SdkConfigPatch), as text a person edits, and back. Lists are one entry a line;
// named numbers are `name = number` lines. The bounds are not here: the form checks the
// result against the schema the server publishes (lib/schema-check.ts).
import type { Issue } from './schema-check.ts';

export type Config = Record<string, unknown>;

/** Every control, keyed by the field path the API names in its errors. */
export const CONTROLS = [
  'sample_rate', 'privacy.respect_dnt', 'privacy.require_consent', 'privacy.cookieless',
  'ignore_selectors', 'page_groups', 'signal_weights', 'signals',
  'revenue_config.currency', 'revenue_config.average_value_cents', 'revenue_config.plan_values', 'revenue_config.conversion_events',
  'verification_environments',
  'clips.enabled', 'clips.unmask', 'clips.allow_media',
] as const;
export type Control = (typeof CONTROLS)[number];
export type Values = Record<Control, string | boolean>;

const PRIVACY = ['respect_dnt', 'require_consent', 'cookieless'] as const;

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const named = (v: unknown) => Object.entries(obj(v)).map(([k, n]) => `${k} = ${String(n)}`).join('\n');

/** The form's text for a stored config. */
export function fromConfig(config: Config): Values {
  const privacy = obj(config.privacy);
  const revenue = obj(config.revenue_config);
  return {
    sample_rate: config.sample_rate === undefined ? '' : String(config.sample_rate),
    'privacy.respect_dnt': privacy.respect_dnt === true,
    'privacy.require_consent': privacy.require_consent === true,
    'privacy.cookieless': privacy.cookieless === true,
    ignore_selectors: list(config.ignore_selectors).join('\n'),
    page_groups: list(config.page_groups).map((g) => `${String(obj(g).match)} -> ${String(obj(g).page)}`).join('\n'),
    signal_weights: named(config.signal_weights),
    signals: Object.entries(obj(config.signals)).map(([name, s]) => [name, ...Object.entries(obj(s)).map(([k, v]) => (k === 'enabled' ? (v ? 'on' : 'off') : `${k}=${String(v)}`))].join(' ')).join('\n'),
    'revenue_config.currency': typeof revenue.currency === 'string' ? revenue.currency : '',
    'revenue_config.average_value_cents': revenue.average_value_cents === undefined ? '' : String(revenue.average_value_cents),
    'revenue_config.plan_values': named(revenue.plan_values),
    'revenue_config.conversion_events': list(revenue.conversion_events).join('\n'),
    verification_environments: list(config.verification_environments).join('\n'),
    'clips.enabled': obj(config.clips).enabled === true,
    'clips.unmask': list(obj(config.clips).unmask).join('\n'),
    'clips.allow_media': obj(config.clips).allow_media === true,
  };
}

/**
 * The config the form's text describes, given the stored one (a privacy flag that was stored as
 * false stays false rather than vanishing), and what could not be read, by control.
 */
export function toConfig(values: Values, stored: Config): { config: Config; issues: Issue[] } {
  const issues: Issue[] = [];
  const config: Config = {};
  const text = (c: Control) => String(values[c]).trim();
  const number = (c: Control, raw: string, what = ''): number | undefined => {
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n)) { issues.push({ field: c, message: `${what}must be a number` }); return undefined; }
    return n;
  };
  const namedNumbers = (c: Control) => {
    const out: Record<string, number> = {};
    for (const line of lines(String(values[c]))) {
      const m = /^(.+?)\s*[=:]\s*(\S+)$/.exec(line);
      if (!m) { issues.push({ field: c, message: `"${line}": write one "name = number" a line` }); continue; }
      const n = number(c, m[2], `${m[1]}: `);
      if (n !== undefined) out[m[1]] = n;
    }
    return out;
  };

  if (text('sample_rate') !== '') { const n = number('sample_rate', text('sample_rate')); if (n !== undefined) config.sample_rate = n; }

  const storedPrivacy = obj(stored.privacy);
  const privacy: Record<string, boolean> = {};
  for (const flag of PRIVACY) if (values[`privacy.${flag}`] === true || flag in storedPrivacy) privacy[flag] = values[`privacy.${flag}`] === true;
  if (Object.keys(privacy).length > 0) config.privacy = privacy;

  const selectors = lines(String(values.ignore_selectors));
  if (selectors.length > 0) config.ignore_selectors = selectors;

  const groups = lines(String(values.page_groups)).map((line) => {
    const at = line.lastIndexOf('->');
    if (at < 0) { issues.push({ field: 'page_groups', message: `"${line}": write "pattern -> /page" a line` }); return null; }
    return { match: line.slice(0, at).trim(), page: line.slice(at + 2).trim() };
  }).filter((g) => g !== null);
  if (groups.length > 0) config.page_groups = groups;

  const weights = namedNumbers('signal_weights');
  if (Object.keys(weights).length > 0) config.signal_weights = weights;

  const signals: Record<string, Record<string, unknown>> = {};
  for (const line of lines(String(values.signals))) {
    const [name, ...settings] = line.split(/\s+/);
    const entry: Record<string, unknown> = {};
    for (const setting of settings) {
      if (setting === 'on' || setting === 'off') { entry.enabled = setting === 'on'; continue; }
      const m = /^([^=]+)=(.+)$/.exec(setting);
      if (!m) { issues.push({ field: 'signals', message: `"${line}": each setting is on, off or name=number` }); continue; }
      const n = number('signals', m[2], `${name} ${m[1]}: `);
      if (n !== undefined) entry[m[1]] = n;
    }
    signals[name] = entry;
  }
  if (Object.keys(signals).length > 0) config.signals = signals;

  const revenue: Record<string, unknown> = {};
  if (text('revenue_config.currency') !== '') revenue.currency = text('revenue_config.currency');
  if (text('revenue_config.average_value_cents') !== '') {
    const n = number('revenue_config.average_value_cents', text('revenue_config.average_value_cents'));
    if (n !== undefined) revenue.average_value_cents = n;
  }
  const plans = namedNumbers('revenue_config.plan_values');
  if (Object.keys(plans).length > 0) revenue.plan_values = plans;
  const conversions = lines(String(values['revenue_config.conversion_events']));
  if (conversions.length > 0) revenue.conversion_events = conversions;
  if (Object.keys(revenue).length > 0) config.revenue_config = revenue;

  const environments = lines(String(values.verification_environments));
  if (environments.length > 0) config.verification_environments = environments;

  // Clips are written whole once set (or stored), so turning them off is an explicit false.
  const unmask = lines(String(values['clips.unmask']));
  if (values['clips.enabled'] === true || values['clips.allow_media'] === true || unmask.length > 0 || 'clips' in stored) {
    config.clips = { enabled: values['clips.enabled'] === true, unmask, allow_media: values['clips.allow_media'] === true };
  }
  return { config, issues };
}

/** Same JSON whatever the key order. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  : x));

/** The PATCH that turns `stored` into `next`: changed settings, and null for each one removed. */
export function patchBetween(stored: Config, next: Config): Config {
  const patch: Config = {};
  for (const key of new Set([...Object.keys(stored), ...Object.keys(next)])) {
    if (!(key in next)) patch[key] = null;
    else if (canonical(stored[key]) !== canonical(next[key])) patch[key] = next[key];
  }
  return patch;
}

/** The control a field path of the API belongs to (`page_groups.2.page` -> `page_groups`); null for the form as a whole. */
export function controlOf(field: string): Control | null {
  const parts = field.split('.');
  const two = parts.slice(0, 2).join('.');
  if ((CONTROLS as readonly string[]).includes(two)) return two as Control;
  if (parts[0] === 'revenue_config') return 'revenue_config.currency';
  if (parts[0] === 'privacy') return 'privacy.respect_dnt';
  if (parts[0] === 'clips') return 'clips.enabled';
  if ((CONTROLS as readonly string[]).includes(parts[0])) return parts[0] as Control;
  return null;
}
