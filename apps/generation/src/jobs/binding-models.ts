import type { CatalogueService } from '../catalogue/catalogue.service';
import type { UpstreamPhases } from '../ports/engine';

/** The catalogue's models whose engine is parked, with their phases (their binding, its limits). */
function parkedModels(catalogue: CatalogueService): Array<{ modelId: string; phases: UpstreamPhases }> {
  const found: Array<{ modelId: string; phases: UpstreamPhases }> = [];
  for (const model of catalogue.definitions()) {
    const phases = catalogue.engineFor(model).engine?.phases;
    if (phases) found.push({ modelId: model.id, phases });
  }
  return found;
}

/**
 * The models bound to any of `bindings` (provider accounts full or backing off): the claims leave
 * their jobs alone. A binding is shared by every model whose binding names the same account.
 */
export function modelsOnBindings(catalogue: CatalogueService, bindings: readonly string[]): string[] {
  if (bindings.length === 0) return [];
  const blocked = new Set(bindings);
  return parkedModels(catalogue)
    .filter((m) => blocked.has(m.phases.binding))
    .map((m) => m.modelId);
}

/**
 * The `maxInFlight` of each binding that sets one (the in-flight gauge's `limit` series); where the
 * models of one account set different values, the largest (each submit is held to its own model's).
 */
export function bindingCaps(catalogue: CatalogueService): Map<string, number> {
  const caps = new Map<string, number>();
  for (const { phases } of parkedModels(catalogue)) {
    if (phases.maxInFlight !== null) caps.set(phases.binding, Math.max(caps.get(phases.binding) ?? 0, phases.maxInFlight));
  }
  return caps;
}
