import { Inject, Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError, ValidationError } from '@gen/errors';
import type { EngineKind } from '../ports/engine-kind';
import type { ModelStatus } from './catalogue';
import { ENGINE_KINDS } from './model-engines';
import { ModelEntry, parseCatalogueFile, parseModelEntry, toModelEntry } from './model-entry';
import { CatalogueSyncResult, ModelsRepository, StoredModel } from './models.repository';

/** A model as `models list` shows it. */
export type ListedModel = ReturnType<typeof toModelEntry> & { created_at: string; updated_at: string };

/**
 * The operator's catalogue commands (CLI `models ...`). Everything written is validated first, and
 * a whole catalogue file is refused if any entry is wrong; the replicas pick changes up by
 * themselves within seconds (CatalogueService).
 */
@Injectable()
export class CatalogueAdminService {
  constructor(
    private readonly models: ModelsRepository,
    @Inject(ENGINE_KINDS) private readonly kinds: ReadonlyMap<string, EngineKind>,
  ) {}

  async list(): Promise<ListedModel[]> {
    return (await this.models.all()).map(listed);
  }

  async add(entry: Record<string, unknown>): Promise<ListedModel> {
    const model = this.parse(entry, 'model');
    const stored = await this.models.insert(model);
    if (!stored) throw new ConflictError(`A model "${model.id}" exists already; change it with models update.`);
    return listed(stored);
  }

  /** Changes the given fields of a model; the others keep their values. */
  async update(id: string, changes: Partial<ModelEntry>): Promise<ListedModel> {
    const existing = await this.models.find(id);
    if (!existing) throw new NotFoundError(`No model "${id}" (see models list).`);
    const model = this.parse({ ...toModelEntry(existing), ...changes, id }, `model "${id}"`);
    return listed((await this.models.replace(model)) as StoredModel);
  }

  async setStatus(id: string, status: ModelStatus): Promise<ListedModel> {
    return this.update(id, { status });
  }

  /** Makes the catalogue equal the file (`{"models": [...]}`); nothing is written unless every entry is valid. */
  async sync(json: unknown): Promise<CatalogueSyncResult> {
    const problems: string[] = [];
    const models = parseCatalogueFile(json, this.kinds, problems);
    if (problems.length > 0) throw new ValidationError(`The catalogue file was refused, nothing changed:\n  ${problems.join('\n  ')}`);
    return this.models.sync(models);
  }

  private parse(entry: Record<string, unknown>, where: string) {
    const problems: string[] = [];
    const model = parseModelEntry(entry, where, this.kinds, problems);
    if (!model) throw new ValidationError(problems.join('; '));
    return model;
  }
}

function listed(model: StoredModel): ListedModel {
  return { ...toModelEntry(model), created_at: model.createdAt.toISOString(), updated_at: model.updatedAt.toISOString() };
}
