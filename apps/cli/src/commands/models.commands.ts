import { readFileSync } from 'node:fs';
import { Broadcasts, GENERATION_TYPES, PLANS } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { CatalogueAdminModule, CatalogueAdminService, ListedModel, ModelEntry, openGenerationDatabase } from '@gen/generation';
import { broadcastOverNats } from '../context/cli-broadcast';
import { withNestContext } from '../context/cli-context';
import { CliDatabase } from '../context/cli-database';
import { CommandGroup, CommandSpec, Options, req, str } from '../context/command-spec';
import { parseBoolean, parseInteger, parseJsonObject } from '../context/option-parsers';

function modelLine(m: ListedModel): string {
  const sync = m.synchronous ? 'sync ' : 'async';
  return `${m.id.padEnd(20)} ${m.status.padEnd(8)} ${m.type.padEnd(14)} ${String(m.credits).padStart(5)} cr (min ${m.minimum_credits})  ${m.min_plan.padEnd(10)} ${sync}  ${m.engine.engine}  ${m.name}`;
}

/** The fields of `models add` and `models update` (all required to add, any to update). */
function modelOptions(adding: boolean): CommandSpec['options'] {
  return {
    id: { description: 'model id: a-z, 0-9, ".", "_", "-" (what clients send as "model")', required: true },
    name: { description: 'display name', required: adding },
    type: { description: GENERATION_TYPES.join(', '), required: adding },
    credits: { description: 'price in credits, charged on success', required: adding },
    minimum: { description: 'credits an account must have available to submit', required: adding },
    plan: { description: `lowest plan that may use it: ${PLANS.join(', ')}`, required: adding },
    sync: { description: 'true: POST /generate waits for the result; false: answers 202 at once', required: adding },
    engine: { description: `engine binding as JSON, e.g. '{"engine":"replicate","upstreamModel":"owner/name","tokenEnv":"REPLICATE_API_TOKEN"}'`, required: adding },
    inputs: { description: `the inputs customers may give, a JSON Schema object, e.g. '{"type":"object","properties":{"seed":{"type":"integer","minimum":0}},"additionalProperties":false}'` },
    'price-multipliers': { description: "comma-separated numeric inputs the price is multiplied by, e.g. num_outputs ('' for none)" },
    'batch-credits': { description: "price of one generation in a batch (POST /api/v1/batches), at most --credits: the batch discount ('none' removes it)" },
  };
}

/** The fields given on the command line, as a catalogue entry (only those given, for update). */
function modelChanges(o: Options): Partial<ModelEntry> {
  const number = (name: string) => (str(o, name) === undefined ? undefined : parseInteger(name, str(o, name)));
  const batchCredits = str(o, 'batch-credits');
  const changes: Record<string, unknown> = {
    name: str(o, 'name'),
    type: str(o, 'type'),
    credits: number('credits'),
    minimum_credits: number('minimum'),
    min_plan: str(o, 'plan'),
    synchronous: parseBoolean('sync', str(o, 'sync')),
    engine: parseJsonObject('engine', str(o, 'engine')),
    inputs: parseJsonObject('inputs', str(o, 'inputs')),
    price_multipliers: str(o, 'price-multipliers')
      ?.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    batch_credits: batchCredits === undefined ? undefined : batchCredits === 'none' ? null : parseInteger('batch-credits', batchCredits),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<ModelEntry>;
}

/**
 * The model catalogue (generation's `models` table). After a change commits, every replica reads the
 * catalogue again: told over NATS here, and by the database's notice.
 */
async function withCatalogue(database: CliDatabase, change: boolean, use: (catalogue: CatalogueAdminService) => Promise<void>): Promise<void> {
  await withNestContext([openGenerationDatabase(database.url, 2, 'verify')], ([generation]) => [CatalogueAdminModule.register(generation)], (app) =>
    use(app.get(CatalogueAdminService)),
  );
  if (!change) return;
  const problem = await broadcastOverNats(process.env, Broadcasts.catalogueChanged, {});
  if (problem) process.stderr.write(`The running services were not told over NATS (${problem}); the database's notice reaches them.\n`);
}

/** `models disable` and `models enable`. */
function statusCommand(status: 'disabled' | 'active'): CommandSpec['run'] {
  return (o, { database, out }) =>
    withCatalogue(database, true, async (catalogue) => {
      const model = await catalogue.setStatus(req(o, 'id'), status);
      out(`${status === 'disabled' ? 'Disabled' : 'Enabled'} ${modelLine(model)}`, model);
    });
}

/** The JSON of a catalogue file; unreadable or not JSON is the operator's mistake (exit 2). */
function readCatalogueFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ValidationError(code ? `Cannot read ${file} (${code})` : `${file} is not valid JSON (${(error as Error).message})`);
  }
}

export const MODELS: CommandGroup = {
  name: 'models',
  summary: 'Read and change the model catalogue (every replica serves a change within seconds).',
  commands: {
    list: {
      summary: 'List the model catalogue: price, minimum, plan, sync, status and engine binding.',
      options: {},
      run: (_o, { database, out }) =>
        withCatalogue(database, false, async (catalogue) => {
          const rows = await catalogue.list();
          out(rows.map(modelLine).join('\n') || '(no models)', rows);
        }),
    },
    add: {
      summary: 'Add a model to the catalogue (every gateway and generation replica serves it within seconds).',
      options: modelOptions(true),
      mayCreateData: true,
      run: (o, { database, out }) =>
        withCatalogue(database, true, async (catalogue) => {
          const model = await catalogue.add({ id: req(o, 'id'), ...modelChanges(o) });
          out(`Added ${modelLine(model)}`, model);
        }),
    },
    update: {
      summary: "Change a model's fields; the others keep their values. A new price applies to new submits only.",
      options: modelOptions(false),
      run: (o, { database, out }) =>
        withCatalogue(database, true, async (catalogue) => {
          const changes = modelChanges(o);
          if (Object.keys(changes).length === 0) {
            throw new ValidationError('Nothing to change: give at least one of --name, --type, --credits, --minimum, --plan, --sync, --engine, --inputs, --price-multipliers, --batch-credits');
          }
          const model = await catalogue.update(req(o, 'id'), changes);
          out(`Updated ${modelLine(model)}`, model);
        }),
    },
    disable: {
      summary: 'Stop accepting submits for a model (422); it stays listed as unavailable; accepted jobs still run.',
      options: { id: { description: 'model id', required: true } },
      run: statusCommand('disabled'),
    },
    enable: { summary: 'Accept submits for a disabled model again.', options: { id: { description: 'model id', required: true } }, run: statusCommand('active') },
    sync: {
      summary: 'Make the catalogue equal a JSON file {"models": [...]} (declarative, idempotent); models not in it are disabled.',
      options: { file: { description: 'path of the catalogue file; refused whole if any entry is invalid', required: true } },
      mayCreateData: true,
      run: (o, { database, out }) =>
        withCatalogue(database, true, async (catalogue) => {
          const result = await catalogue.sync(readCatalogueFile(req(o, 'file')));
          const part = (label: string, ids: string[]) => `${label} ${ids.length}${ids.length ? ` (${ids.join(', ')})` : ''}`;
          out([part('added', result.added), part('updated', result.updated), part('disabled', result.disabled), part('unchanged', result.unchanged)].join(', '), result);
        }),
    },
  },
};
