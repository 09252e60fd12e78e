import { Gauge } from 'prom-client';
import type { MetricsRegistry } from '@gen/observability';
import type { CatalogueService } from './catalogue.service';

/**
 * `gen_catalogue_models{status, available}`: the catalogue as this replica serves it right now,
 * read from memory at scrape time. Unlike the queue gauges it can differ between replicas for the
 * second a change takes to reach them; a replica that stays behind shows here.
 */
export class CatalogueMetrics {
  constructor(metrics: MetricsRegistry, catalogue: CatalogueService) {
    new Gauge({
      name: 'gen_catalogue_models',
      help: "Models in this replica's copy of the catalogue, by status and whether a submit can use them",
      labelNames: ['status', 'available'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const model of catalogue.list()) {
          const status = catalogue.find(model.id)?.status ?? 'active';
          this.inc({ status, available: String(model.available) });
        }
      },
    });
  }
}
