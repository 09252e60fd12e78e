import { int } from '@gen/config';

/**
 * The gateway's own variables (README, "Configuration"; libs/config for the shared ones). Each
 * value reaches the code as the field of the same name of GatewaySettings (GATEWAY_SETTINGS):
 * a new variable is one line here.
 */
export const GATEWAY_VARIABLES = {
  syncWaitMs: int('SYNC_WAIT_MS', 30_000, 'how long `POST /generate` waits for an image model before `202`', { min: 0, max: 300_000 }),
  streamsPerAccount: int('SSE_STREAMS_PER_ACCOUNT', 20, 'live status streams one account may hold open on one gateway', { min: 1, max: 10_000 }),
  streamHeartbeatMs: int('SSE_HEARTBEAT_MS', 15_000, 'how often an idle live status stream sends a comment line', { min: 100, max: 300_000 }),
  auditRetentionDays: int('AUDIT_RETENTION_DAYS', 365, 'how long the audit log keeps an entry (days); older ones are deleted', { min: 1, max: 36_500 }),
  finishedRecordsMaxEntries: int('FINISHED_RECORDS_MAX_ENTRIES', 10_000, 'finished generation records (about 1 to 2 KB each) a gateway keeps in memory to answer `GET /generations/{id}` without asking the generation service (a finished record never changes); 0 keeps none', { min: 0, max: 10_000_000 }),
  catalogueMaxStaleMs: int('CATALOGUE_MAX_STALE_MS', 5_000, "the longest a gateway serves its copy of the model catalogue after reading it, should a change's notice not reach it (past that a request waits for a fresh read, or `503`)", { min: 100, max: 3_600_000 }),
};
