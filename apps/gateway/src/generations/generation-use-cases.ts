import type { Provider } from '@nestjs/common';
import { CancelGeneration } from './cancel-generation';
import { GetGenerationDetail } from './deliveries/get-generation-detail';
import { ListGenerationDeliveries } from './deliveries/list-generation-deliveries';
import { RedeliverWebhook } from './deliveries/redeliver-webhook';
import { GetGeneration } from './get-generation';
import { ListGenerations } from './list-generations';
import { SubmitGeneration } from './submit/submit-generation';

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
