// The heatmap routes' query strings and answers; the readers (and the MCP tools) take and
// return the same shapes.
import { Type } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { SELECTOR_MAX } from '../../domain/normalize.ts';
import { SiteIdParam } from '../../domain/schema-parts.ts';

const PageQuery = {
  site_id: Type.Optional(SiteIdParam),
  page: Type.String({ minLength: 1, maxLength: 2048, description: 'A page path, e.g. /checkout' }),
  ...ReadFilterQuery,
};

export const PageHeatmapQuery = Type.Object(PageQuery);
export const ElementHeatmapQuery = Type.Object({
  ...PageQuery,
  selector: Type.String({ minLength: 1, maxLength: SELECTOR_MAX, description: `The element's CSS selector as the issues and elements name it, e.g. button.pay (up to ${SELECTOR_MAX} characters)` }),
});

const ElementPoint = Type.Object({ rx: Type.Number(), ry: Type.Number(), signal: Type.String() });
const PagePoint = Type.Object({ vx: Type.Number(), vy: Type.Number(), signal: Type.String(), el: Type.Optional(Type.String()) });

export const ElementHeatmap = Type.Object({ page: Type.String(), selector: Type.String(), count: Type.Integer(), points: Type.Array(ElementPoint) });
export const PageHeatmap = Type.Object({ page: Type.String(), count: Type.Integer(), points: Type.Array(PagePoint) });
