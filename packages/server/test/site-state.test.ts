// The site's state (DOMAIN.md section 3): the overall score's band, never milder than what is
// firing, with what set it and the one sentence every face shows.
import { describe, expect, it } from 'vitest';
import { siteState } from '../src/pipeline/site-state.ts';

const page = (path: string, score: number, duck_state: string) => ({ page: path, score, duck_state });
const calmPages = [page('/', 3.1, 'calm'), page('/pricing', 12, 'calm')];

describe('siteState', () => {
  it('an empty site says no data yet, never everything normal', () => {
    const state = siteState({ overallScore: 0, pages: [], activeAlerts: [] });
    expect(state).toMatchObject({ duck_state: 'calm', duck_label: 'no data yet', duck_reason: 'score' });
    expect(state.headline).toMatch(/^No data yet: add the Mallard SDK/);
  });

  it('a calm site with nothing firing is calm by its score', () => {
    expect(siteState({ overallScore: 3.9, pages: calmPages, activeAlerts: [] })).toEqual({
      duck_state: 'calm', duck_label: 'everything normal', duck_reason: 'score', headline: 'calm: overall score 3.9 of 100; no alerts firing',
    });
  });

  it('an active critical alert makes a calm site at least alert, and says so', () => {
    const state = siteState({ overallScore: 3.9, pages: calmPages, activeAlerts: ['critical', 'warning', 'warning'] });
    expect(state).toMatchObject({ duck_state: 'alert', duck_label: 'noticeable confusion', duck_reason: 'alert' });
    expect(state.headline).toBe('alert: 1 critical alert firing; 2 other alerts firing; overall score 3.9 of 100');
  });

  it.each([['warning'], ['high']] as const)('an active %s alert makes a calm site at least watching', (severity) => {
    const state = siteState({ overallScore: 3.9, pages: calmPages, activeAlerts: [severity] });
    expect(state).toMatchObject({ duck_state: 'watching', duck_reason: 'alert' });
    expect(state.headline).toBe('watching: 1 alert firing; overall score 3.9 of 100');
  });

  it('a page at flustered or worse makes a calm site at least watching, named in the headline', () => {
    const pages = [...calmPages, page('/cart', 72.4, 'flustered'), page('/checkout', 94.8, 'critical'), page('/search', 61, 'flustered')];
    const state = siteState({ overallScore: 10.8, pages, activeAlerts: [] });
    expect(state).toMatchObject({ duck_state: 'watching', duck_reason: 'page' });
    expect(state.headline).toBe('watching: /checkout critical (94.8); /cart flustered (72.4); 1 more page flustered or worse; overall score 10.8 of 100');
  });

  it('a critical alert outranks a flustered page; a page at alert sets nothing', () => {
    const pages = [page('/cart', 72.4, 'flustered'), page('/help', 55, 'alert')];
    expect(siteState({ overallScore: 30, pages, activeAlerts: ['critical'] })).toMatchObject({ duck_state: 'alert', duck_reason: 'alert' });
    expect(siteState({ overallScore: 5, pages: [page('/help', 55, 'alert')], activeAlerts: [] })).toMatchObject({ duck_state: 'calm', duck_reason: 'score' });
  });

  it('a score already at or above the floor keeps the score as the reason', () => {
    const pages = [page('/cart', 88, 'critical')];
    expect(siteState({ overallScore: 45, pages, activeAlerts: ['critical'] })).toMatchObject({ duck_state: 'alert', duck_reason: 'score' });
    expect(siteState({ overallScore: 85, pages, activeAlerts: ['critical'] })).toMatchObject({ duck_state: 'critical', duck_reason: 'score' });
  });
});
