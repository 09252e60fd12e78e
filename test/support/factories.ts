import type { ModelDefinitionInput } from '@gen/generation';

/**
 * A catalogue model for a spec's deployment (standalone's `catalogue` override): a free-plan image
 * model priced 1 credit (its minimum, the price), answered synchronously, named after its id; pass
 * the id, the engine and what the spec is about.
 */
export function testModel(model: Partial<ModelDefinitionInput> & Pick<ModelDefinitionInput, 'id' | 'engine'>): ModelDefinitionInput {
  const credits = model.credits ?? 1;
  return {
    name: model.id,
    type: 'TEXT_TO_IMAGE',
    credits,
    minimumCredits: credits,
    synchronous: true,
    minPlan: 'free',
    params: {},
    ...model,
  };
}
