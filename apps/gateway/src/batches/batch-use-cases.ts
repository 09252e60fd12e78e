import type { Provider } from '@nestjs/common';
import { BatchQueries } from './batch-queries.service';
import { CreateBatch } from './create-batch.service';

/** The customer's actions on batches, called by the API's and the dashboard's controllers. */
export const BATCH_USE_CASES: Provider[] = [CreateBatch, BatchQueries];
