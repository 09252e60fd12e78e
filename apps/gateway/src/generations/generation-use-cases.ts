import type { Provider } from '@nestjs/common';
import { CancelGeneration } from './cancel-generation.service';
import { GetGenerationDetail } from './deliveries/get-generation-detail.service';
import { ListGenerationDeliveries } from './deliveries/list-generation-deliveries.service';
import { RedeliverWebhook } from './deliveries/redeliver-webhook.service';
import { GetGeneration } from './records/get-generation.service';
import { ListGenerations } from './list-generations.service';
import { SubmitGeneration } from './submit/submit-generation.service';

/** The customer's actions on generations, each one class called by the API's and the dashboard's controllers. */
export const GENERATION_USE_CASES: Provider[] = [
  SubmitGeneration,
  GetGeneration,
  ListGenerations,
  CancelGeneration,
  ListGenerationDeliveries,
  RedeliverWebhook,
  GetGenerationDetail,
];
