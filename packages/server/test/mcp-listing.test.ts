// How tools/list trims the route schemas (src/mcp/listing.ts): what an argument's description
// keeps, how output schemas keep their fields and types, which hints are listed, and site_id
// left out for a site-scoped credential.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { annotationsOf, listedInput, listedOutput, listingFor, shortDescription } from '../src/mcp/listing.ts';

const json = (schema: unknown) => JSON.parse(JSON.stringify(schema));

describe('tools/list trimming', () => {
  it('drops from a description the allowed values and bounds the schema already gives, and the sentences after the first', () => {
    expect(shortDescription('Only issues in this status: open, triaged, resolved (default: all)', ['open', 'triaged', 'resolved'])).toBe('Only issues in this status (default: all)');
    expect(shortDescription('The new status: acknowledged, investigating or resolved', ['acknowledged', 'investigating', 'resolved'])).toBe('The new status');
    expect(shortDescription('Days of history, newest first (1 to 90, default 7)', null)).toBe('Days of history, newest first');
    expect(shortDescription('A funnel id. Give steps or funnel_id', null)).toBe('A funnel id');
    // A clause that carries meaning stays: null unassigns.
    expect(shortDescription('Who works on it (e.g. an email, up to 254 characters); null unassigns', null)).toBe('Who works on it (e.g. an email, up to 254 characters); null unassigns');
  });

  it('lists an argument with its type or closed list, bounds and default, and a short wording for the shared ones', () => {
    const listed = listedInput(json({
      properties: {
        site_id: Type.String({ maxLength: 64, description: 'The site (a UUID). A site-scoped key may omit it' }),
        status: Type.Union([Type.Literal('open'), Type.Literal('resolved')], { description: 'Only issues in this status: open, resolved' }),
        days: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'Days (1 to 90, default 7)' }),
      },
      required: [],
    }));
    expect(listed).toEqual({
      type: 'object', additionalProperties: false,
      properties: {
        site_id: { type: 'string', description: 'Site UUID' },
        status: { type: 'string', enum: ['open', 'resolved'], description: 'Only issues in this status' },
        days: { type: 'integer', minimum: 1, maximum: 90, default: 7, description: 'Days' },
      },
    });
  });

  it('keeps an output schema\'s top-level fields with their types (nullable ones as two types) and short closed lists, through intersections', () => {
    const record = Type.Intersect([
      Type.Object({ id: Type.String({ description: 'The id' }), score: Type.Union([Type.Number(), Type.Null()]) }),
      Type.Object({ severity: Type.Union([Type.Literal('low'), Type.Literal('high')]), rows: Type.Array(Type.Object({ a: Type.String() })) }),
    ]);
    expect(listedOutput(json(record))).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, score: { type: ['number', 'null'] }, severity: { type: 'string', enum: ['low', 'high'] }, rows: { type: 'array', items: { type: 'object' } } },
    });
  });

  it('lists only the hints that mean something: destructive and idempotent for writes', () => {
    expect(annotationsOf(undefined)).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(annotationsOf({ idempotent: true })).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('leaves site_id out for a site-scoped credential only', () => {
    const listing = { name: 't', inputSchema: { type: 'object', properties: { site_id: {}, page: {} }, required: ['page'] } };
    expect(listingFor(listing, true).inputSchema).toEqual({ type: 'object', properties: { page: {} }, required: ['page'] });
    expect(listingFor(listing, false)).toBe(listing);
  });
});
