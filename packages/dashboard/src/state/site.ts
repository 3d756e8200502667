// The org's sites and the one being looked at (kept for the tab, like the session).
import { computed, signal } from '@preact/signals';
import { api } from './api.ts';
import type { Site, SiteList } from '../api/types.ts';

const KEY = 'mallard.site';
export const sites = signal<Site[] | null>(null);
export const siteId = signal<string | null>(sessionStorage.getItem(KEY));
export const currentSite = computed(() => sites.value?.find((s) => s.id === siteId.value) ?? null);

export function chooseSite(id: string) {
  sessionStorage.setItem(KEY, id);
  siteId.value = id;
}

/** Loads the sites and keeps the chosen one if it still exists, else the first. */
export async function loadSites(): Promise<Site[]> {
  const { sites: list } = await api.get<SiteList>('/manage/sites');
  sites.value = list;
  if (!list.some((s) => s.id === siteId.value)) {
    if (list[0]) chooseSite(list[0].id);
    else siteId.value = null;
  }
  return list;
}
