// Fake providers (Replicate, fal, Cog, OpenAI Images, our `remote` protocol) for the adapters' specs,
// the end-to-end and distributed tiers and bench:providers.
export { addCatalogueModel, ASSET_OF, ASSET_TYPES, ASSETS, dataUri, LEAK } from './fake-provider';
export type { AssetName, CatalogueRow, FakeServers, SentCallback } from './fake-provider';
export { startFakeCog } from './fake-cog';
export type { CogPrediction, CogScenario, FakeCog } from './fake-cog';
export { startFakeFal } from './fake-fal';
export type { FakeFal, FalScenario } from './fake-fal';
export { startFakeReplicate } from './fake-replicate';
export type { FakeReplicate, ReplicateScenario } from './fake-replicate';
export { startFakeOpenAiImages } from './fake-openai-images';
export type { FakeOpenAiImages, OpenAiImagesScenario } from './fake-openai-images';
export { sanitisationProblems, startFakeUpstream } from './fake-upstream';
export type { FakeUpstream, UpstreamScenario } from './fake-upstream';
