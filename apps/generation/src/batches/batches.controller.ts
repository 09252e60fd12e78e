import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddBatchLinesReply,
  AddBatchLinesRequest,
  BatchLinesReply,
  BatchView,
  CancelBatchRequest,
  CreateBatchRequest,
  GetBatchRequest,
  ListBatchesReply,
  ListBatchesRequest,
  ListBatchLinesRequest,
  SealBatchRequest,
  Subjects,
} from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { BatchesService } from './batches.service';

/** The generation.batch.* message handlers (docs/design/batches.md): one line each. */
@Controller()
@UseFilters(RpcErrorFilter)
export class BatchesController {
  constructor(private readonly batches: BatchesService) {}

  @MessagePattern(Subjects.generationBatchCreate)
  create(@Payload() request: CreateBatchRequest): Promise<AddBatchLinesReply> {
    return this.batches.create(request);
  }

  @MessagePattern(Subjects.generationBatchLines)
  lines(@Payload() request: AddBatchLinesRequest): Promise<AddBatchLinesReply> {
    return this.batches.addLines(request);
  }

  @MessagePattern(Subjects.generationBatchSeal)
  seal(@Payload() request: SealBatchRequest): Promise<BatchView> {
    return this.batches.seal(request);
  }

  @MessagePattern(Subjects.generationBatchGet)
  get(@Payload() request: GetBatchRequest): Promise<BatchView> {
    return this.batches.get(request);
  }

  @MessagePattern(Subjects.generationBatchList)
  list(@Payload() request: ListBatchesRequest): Promise<ListBatchesReply> {
    return this.batches.list(request);
  }

  @MessagePattern(Subjects.generationBatchCancel)
  cancel(@Payload() request: CancelBatchRequest): Promise<BatchView> {
    return this.batches.cancel(request);
  }

  @MessagePattern(Subjects.generationBatchResults)
  results(@Payload() request: ListBatchLinesRequest): Promise<BatchLinesReply> {
    return this.batches.lines(request);
  }
}
