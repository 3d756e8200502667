// How long a site's raw data is kept: its own retention_days when set, never more than the
// instance's MALLARD_RETENTION_DAYS (config.retentionDays). Used by the sites routes (which show
// it) and the retention job (which applies it).
export function effectiveRetentionDays(siteDays: number | null, maxRetentionDays: number): number {
  return siteDays === null ? maxRetentionDays : Math.min(siteDays, maxRetentionDays);
}
