/**
 * What browser code (the dashboard) imports as `@gen/contracts`: the shapes it reads and the
 * constants it shows, and nothing that carries class-validator decorators (the message payload
 * classes, the validation helpers). Those need the server's compiler settings (legacy decorators)
 * and would add the validator library to the dashboard's bundle.
 */
export * from './shared/generation';
export * from './model-rules';
export * from './shared/member-roles';
export * from './messages/subjects';
export * from './messages/billing.replies';
export * from './messages/generation.replies';
export * from './messages/webhooks.replies';
export * from './messages/auth.replies';
export * from './dashboard';
export * from './messages/payments.replies';
// Types only, erased from the bundle: the batches' file holds its payload classes beside its replies'
// interfaces, so the dashboard's tsconfig reads its decorators as the server does (experimentalDecorators).
export type { BatchCounts, BatchLineResult, BatchStatus, BatchView, ListBatchesReply } from './messages/batches.messages';
