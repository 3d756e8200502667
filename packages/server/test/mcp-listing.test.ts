// How tools/list trims the route schemas (src/mcp/listing.ts): what an argument's description
// keeps, how output schemas keep their fields and types, which hints are listed, and site_id
// left out for a site-scoped credential.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { annotationsOf, listedAnswer, listedArguments, listedInput, listedOutput, listingFor, shortDescription } from '../src/mcp/listing.ts';

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

  it('lists an argument with its type or closed list, bounds and default; the shared ones, which the instructions describe, with none', () => {
    const listed = listedInput(json({
      properties: {
        site_id: Type.String({ maxLength: 64, description: 'The site (a UUID). A site-scoped key may omit it' }),
        status: Type.Union([Type.Literal('open'), Type.Literal('resolved')], { description: 'Only issues in this status: open, resolved' }),
        days: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'Days (1 to 90, default 7)' }),
        offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Rows to skip' }),
        version: Type.String({ description: 'The version deployed' }),
        environment: Type.String({ description: 'Letters and digits; default production' }),
      },
      required: [],
    }), { version: null, environment: 'default production' });
    expect(listed).toEqual({
      type: 'object', additionalProperties: false,
      properties: {
        site_id: { type: 'string' },
        status: { type: 'string', enum: ['open', 'resolved'], description: 'Only issues in this status' },
        days: { type: 'integer', minimum: 1, maximum: 90, default: 7, description: 'Days' },
        // A bound no one reaches is not listed.
        offset: { type: 'integer', minimum: 0, default: 0 },
        // The tool's own notes: none, or its shorter words.
        version: { type: 'string' },
        environment: { type: 'string', description: 'default production' },
      },
    });
  });

  it('refuses a note for an argument the tool does not take', () => {
    expect(() => listedArguments('t', json({ properties: { page: Type.String() }, required: [] }), { pages: 'typo' })).toThrow('t: argumentNotes name no argument of it: pages');
  });

  it('keeps an output schema\'s top-level fields with their types (nullable ones as two types) and short closed lists, through intersections', () => {
    const record = Type.Intersect([
      Type.Object({ id: Type.String({ description: 'The id' }), score: Type.Union([Type.Number(), Type.Null()]) }),
      Type.Object({ severity: Type.Union([Type.Literal('low'), Type.Literal('high')]), rows: Type.Array(Type.Object({ a: Type.String() })) }),
    ]);
    expect(listedOutput(json(record))).toEqual({
      type: 'object',
      // An array of objects is listed as an array: items of type object add nothing.
      properties: { id: { type: 'string' }, score: { type: ['number', 'null'] }, severity: { type: 'string', enum: ['low', 'high'] }, rows: { type: 'array' } },
    });
  });

  it('leaves out of an answer\'s listing the bookkeeping fields, echoes of arguments, and the fields a tool does not name', () => {
    const answer = json(Type.Object({
      id: Type.String(), site_id: Type.String(), created_at: Type.String(), updated_at: Type.String(), page: Type.String(),
      title: Type.String(), tags: Type.Array(Type.String()), status_changed_at: Type.String(),
    }));
    expect(listedAnswer(answer, ['page'])).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, status_changed_at: { type: 'string' } },
    });
    expect(listedAnswer(answer, [], ['id', 'page'])).toEqual({ type: 'object', properties: { id: { type: 'string' }, page: { type: 'string' } } });
    expect(() => listedAnswer(answer, [], ['id', 'pages'])).toThrow('listedFields name no field of the answer: pages');
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
