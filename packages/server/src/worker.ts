// The background half of the service: the pipeline scheduler, outbox delivery and
// housekeeping. `mallard serve` runs it beside the API unless --no-worker; `mallard worker`
// runs it alone.
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import { startMaintenance } from './jobs/maintenance.ts';
import type { JobLog } from './jobs/periodic.ts';
import { startScheduler } from './pipeline/scheduler.ts';
import { startDeliveryWorker } from './delivery/worker.ts';
import { systemResolver, targetPolicy } from './delivery/targets.ts';
import { Secrets } from './auth/secrets.ts';

export function startWorker(store: Store, clock: Clock, config: Config, log: JobLog) {
  const scheduler = startScheduler(store, clock, config.pipelineIntervalMs, log);
  const maintenance = startMaintenance(store, clock, { rawDays: config.retentionDays, auditDays: config.auditRetentionDays }, log);
  const delivery = startDeliveryWorker({ store, clock, config, secrets: new Secrets(config.secret, config.previousSecret), policy: targetPolicy(config, systemResolver) }, log);
  return {
    async stop() {
      await scheduler.stop();
      await maintenance.stop();
      await delivery.stop();
    },
  };
}
