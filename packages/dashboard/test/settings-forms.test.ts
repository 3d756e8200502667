// The settings forms' pure parts: the schema check that reads the server's published bounds,
// and the SDK config form's text <-> config <-> PATCH round trip.
import { describe, expect, it } from 'vitest';
import { checkSchema, issuesByControl, type JsonSchema } from '../src/lib/schema-check.ts';
import { controlOf, fromConfig, patchBetween, toConfig } from '../src/lib/sdk-config-form.ts';

// The shape of the served document's PATCH /v1/manage/sdk-config body, cut down.
const PATCH: JsonSchema = {
  type: 'object', additionalProperties: false, minProperties: 1,
  properties: {
    sample_rate: { anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'null' }] },
    page_groups: { anyOf: [{ type: 'array', maxItems: 2, items: { type: 'object', required: ['match', 'page'], additionalProperties: false, properties: { match: { type: 'string', minLength: 1 }, page: { type: 'string', pattern: '^/' } } } }, { type: 'null' }] },
    revenue_config: { anyOf: [{ type: 'object', additionalProperties: false, properties: { currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, default USD' }, plan_values: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } } }, { type: 'null' }] },
    channels: { type: 'array', uniqueItems: true, items: { anyOf: [{ type: 'string', enum: ['email'] }, { type: 'string', enum: ['slack'] }] } },
  },
};

describe('checkSchema', () => {
  it('passes a body within bounds, and null where a setting may be removed', () => {
    expect(checkSchema(PATCH, { sample_rate: 0.5, page_groups: null, revenue_config: { currency: 'EUR', plan_values: { pro: 1200 } } })).toEqual([]);
  });

  it('names each failing field by its dotted path, as the API does', () => {
    expect(checkSchema(PATCH, { sample_rate: 5, page_groups: [{ match: '', page: 'x' }], revenue_config: { currency: 'eur', plan_values: { pro: 1.5 } } })).toEqual([
      { field: 'sample_rate', message: 'must be at most 1' },
      { field: 'page_groups.0.match', message: 'must not be empty' },
      { field: 'page_groups.0.page', message: 'must match ^/' },
      { field: 'revenue_config.currency', message: 'must be ISO 4217 code, default USD' },
      { field: 'revenue_config.plan_values.pro', message: 'must be a whole number' },
    ]);
  });

  it('refuses unknown fields, an empty patch, repeated and unlisted entries', () => {
    expect(checkSchema(PATCH, {})).toEqual([{ field: 'body', message: 'nothing to change' }]);
    expect(checkSchema(PATCH, { colour: 'red' })).toEqual([{ field: 'colour', message: 'is not a setting this takes' }]);
    expect(checkSchema(PATCH, { channels: ['email', 'email', 'fax'] })).toEqual([
      { field: 'channels', message: 'must not repeat an entry' },
      { field: 'channels.2', message: 'must be one of email, slack' },
    ]);
    expect(checkSchema(PATCH, { sample_rate: 'half' })).toEqual([{ field: 'sample_rate', message: 'must be a number' }]);
  });

  it('groups messages by the control they belong to', () => {
    const issues = checkSchema(PATCH, { page_groups: [{ match: '', page: 'x' }] });
    expect(issuesByControl(issues, (f) => f.split('.')[0])).toEqual({ page_groups: 'page_groups.0.match: must not be empty; page_groups.0.page: must match ^/' });
  });
});

describe('the SDK config form', () => {
  const stored = {
    sample_rate: 0.5, privacy: { respect_dnt: true, cookieless: false }, ignore_selectors: ['.ads', '#chat'],
    page_groups: [{ match: '^/product/\\d+$', page: '/product/:id' }], signal_weights: { rage_click: 3 },
    signals: { dead_click: { enabled: false, min_count: 4 } },
    revenue_config: { currency: 'EUR', average_value_cents: 4200, plan_values: { pro: 1900 }, conversion_events: ['purchase'] },
    verification_environments: ['staging'],
  };

  it('reads a stored config into text and back into the same config', () => {
    const values = fromConfig(stored);
    expect(values.page_groups).toBe('^/product/\\d+$ -> /product/:id');
    expect(values.signals).toBe('dead_click off min_count=4');
    expect(toConfig(values, stored)).toEqual({ config: stored, issues: [] });
    expect(patchBetween(stored, toConfig(values, stored).config)).toEqual({});
  });

  it('patches what changed and removes what was emptied', () => {
    const values = { ...fromConfig(stored), sample_rate: '0.25', ignore_selectors: '', 'privacy.cookieless': true };
    const { config } = toConfig(values, stored);
    expect(patchBetween(stored, config)).toEqual({ sample_rate: 0.25, ignore_selectors: null, privacy: { respect_dnt: true, cookieless: true } });
  });

  it('says which control holds text it cannot read', () => {
    const values = { ...fromConfig({}), sample_rate: 'half', signal_weights: 'rage_click 3', signals: 'dead_click sometimes' };
    expect(toConfig(values, {}).issues).toEqual([
      { field: 'sample_rate', message: 'must be a number' },
      { field: 'signal_weights', message: '"rage_click 3": write one "name = number" a line' },
      { field: 'signals', message: '"dead_click sometimes": each setting is on, off or name=number' },
    ]);
  });

  it('maps the API\'s field paths onto the controls', () => {
    expect(controlOf('sample_rate')).toBe('sample_rate');
    expect(controlOf('page_groups.3.match')).toBe('page_groups');
    expect(controlOf('revenue_config.plan_values.pro')).toBe('revenue_config.plan_values');
    expect(controlOf('revenue_config')).toBe('revenue_config.currency');
    expect(controlOf('privacy.cookieless')).toBe('privacy.cookieless');
    expect(controlOf('body')).toBeNull();
  });
});

describe('the SDK config form: clips', () => {
  it('leaves clips out of a config that never had them, so saving other settings does not name them', () => {
    const { config } = toConfig(fromConfig({ sample_rate: 1 }), { sample_rate: 1 });
    expect(config).toEqual({ sample_rate: 1 });
  });

  it('writes the switch, the unmask selectors and allow-media as one clips setting, and turning off is an explicit false', () => {
    const on = toConfig({ ...fromConfig({}), 'clips.enabled': true, 'clips.unmask': '.price\n  #plan-name \n' }, {});
    expect(on.config).toEqual({ clips: { enabled: true, unmask: ['.price', '#plan-name'], allow_media: false } });
    const stored = on.config;
    expect(fromConfig(stored)['clips.unmask']).toBe('.price\n#plan-name');
    const off = toConfig({ ...fromConfig(stored), 'clips.enabled': false }, stored);
    expect(patchBetween(stored, off.config)).toEqual({ clips: { enabled: false, unmask: ['.price', '#plan-name'], allow_media: false } });
    expect(patchBetween(stored, toConfig(fromConfig(stored), stored).config)).toEqual({});
  });

  it('sends an API error about clips to its control', () => {
    expect(controlOf('clips.unmask.0')).toBe('clips.unmask');
    expect(controlOf('clips.allow_media')).toBe('clips.allow_media');
    expect(controlOf('clips')).toBe('clips.enabled');
  });
});
