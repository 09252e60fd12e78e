import { Controller, UseFilters } from '@nestjs/common';
import { RpcErrorFilter } from '@gen/errors';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CancelGenerationReply,
  CancelGenerationRequest,
  GenerationRecord,
  OutputStatusReply,
  OutputStatusRequest,
  GetGenerationRequest,
  GetModelRequest,
  ListGenerationsReply,
  ListGenerationsRequest,
  ListModelsReply,
  ModelInfo,
  SubmitGenerationReply,
  SubmitGenerationRequest,
  Subjects,
} from '@gen/contracts';
import { CatalogueService } from './catalogue/catalogue.service';
import { JobsService } from './jobs/runtime/jobs.service';

/** The generation service's message handlers: one line each. */
// Every handler's failure crosses the transport as the envelope (in-process and NATS alike).
@Controller()
@UseFilters(RpcErrorFilter)
export class GenerationController {
  constructor(
    private readonly jobs: JobsService,
    private readonly catalogue: CatalogueService,
  ) {}

  @MessagePattern(Subjects.generationSubmit)
  submit(@Payload() request: SubmitGenerationRequest): Promise<SubmitGenerationReply> {
    return this.jobs.submit(request);
  }

  @MessagePattern(Subjects.generationGet)
  get(@Payload() request: GetGenerationRequest): Promise<GenerationRecord> {
    return this.jobs.get(request);
  }

  @MessagePattern(Subjects.generationList)
  list(@Payload() request: ListGenerationsRequest): Promise<ListGenerationsReply> {
    return this.jobs.list(request);
  }

  @MessagePattern(Subjects.generationCancel)
  cancel(@Payload() request: CancelGenerationRequest): Promise<CancelGenerationReply> {
    return this.jobs.cancel(request);
  }

  @MessagePattern(Subjects.generationOutputStatus)
  outputStatus(@Payload() request: OutputStatusRequest): Promise<OutputStatusReply> {
    return this.jobs.outputStatus(request);
  }

  @MessagePattern(Subjects.modelsList)
  async models(): Promise<ListModelsReply> {
    // Read now: a gateway asks after a change was announced, or once its copy is too old, and must not
    // get the copy from before it; a database that cannot answer is `503` (the gateway's bound holds).
    await this.catalogue.ready();
    await this.catalogue.readFresh();
    return { data: this.catalogue.list(), version: this.catalogue.version };
  }

  @MessagePattern(Subjects.modelsGet)
  async model(@Payload() request: GetModelRequest): Promise<ModelInfo> {
    await this.catalogue.ready();
    return this.catalogue.get(request.modelId);
  }
}
