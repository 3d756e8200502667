// The heatmap operations: click-based friction points, most recent first, as fractions (never
// pixels), inside one element or over a page's viewport.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { knownSelector } from '../pages/known-elements.ts';
import { ElementHeatmap, ElementHeatmapQuery, PageHeatmap, PageHeatmapQuery } from './schemas.ts';
import { elementHeatmap } from './element-heatmap.ts';
import { pageHeatmap } from './page-heatmap.ts';

export const elementHeatmapOp = defineOperation({
  name: 'heatmaps.element',
  summary: 'Where inside one element users struggled (up to 300 points)',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/element-heatmap', surface: 'query', tags: ['query'] },
  input: { query: ElementHeatmapQuery },
  output: ElementHeatmap,
  run: (ctx, input) => elementHeatmap({ ctx, input }),
});

/** The element heatmap as an assistant asks for it: no points for a selector the page does not know is a 404 naming the closest ones it does. */
export const checkedElementHeatmapOp = defineOperation({
  name: 'heatmaps.element_checked',
  summary: 'Where inside one element users struggled; an unknown selector is 404 with the closest known ones',
  access: READ_ACCESS,
  input: { query: ElementHeatmapQuery },
  output: ElementHeatmap,
  run: async (ctx, input) => {
    const heatmap = await elementHeatmap({ ctx, input });
    if (heatmap.count === 0) await knownSelector({ ctx, input });
    return heatmap;
  },
});

export const pageHeatmapOp = defineOperation({
  name: 'heatmaps.page',
  summary: 'Where in the viewport users struggled on a page (up to 500 points)',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/page-heatmap', surface: 'query', tags: ['query'] },
  input: { query: PageHeatmapQuery },
  output: PageHeatmap,
  run: (ctx, input) => pageHeatmap({ ctx, input }),
});

export const HEATMAP_OPERATIONS = [elementHeatmapOp, checkedElementHeatmapOp, pageHeatmapOp];
