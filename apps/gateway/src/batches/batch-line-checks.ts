import type { BatchLinePayload, BatchLineProblemPayload } from '@gen/contracts';
import { DomainError } from '@gen/errors';
import { validateAs } from '../http-common/validate-body';
import { GenerateCheck, GenerateCheckContext } from '../generations/submit/generate-check';
import { GenerateRequestDto } from '../generations/submit/generate-request.dto';
import type { ReadLine } from './batch-file';

/** A file's lines after the check: those that will run (priced) and those refused. */
export interface CheckedLines {
  lines: BatchLinePayload[];
  invalid: BatchLineProblemPayload[];
}

/** Lines checked at once (a line with media inputs reads its uploads). */
const CONCURRENT_CHECKS = 16;

/**
 * Checks each line's body exactly as `POST /api/v1/generate` checks its body (the DTO, then
 * GenerateCheck in its batch form: uploads only, the batch price) and prices it.
 */
export class BatchLineChecks {
  constructor(private readonly checks: GenerateCheck) {}

  async check(read: readonly ReadLine[], context: GenerateCheckContext): Promise<CheckedLines> {
    const outcomes: Array<BatchLinePayload | BatchLineProblemPayload> = [];
    for (let start = 0; start < read.length; start += CONCURRENT_CHECKS) {
      outcomes.push(...(await Promise.all(read.slice(start, start + CONCURRENT_CHECKS).map((line) => this.checkLine(line, context)))));
    }
    const lines: BatchLinePayload[] = [];
    const invalid: BatchLineProblemPayload[] = [];
    for (const outcome of outcomes) {
      if ('code' in outcome) invalid.push(outcome);
      else lines.push(outcome);
    }
    return { lines, invalid };
  }

  private async checkLine(read: ReadLine, context: GenerateCheckContext): Promise<BatchLinePayload | BatchLineProblemPayload> {
    const refused = (code: string, message: string): BatchLineProblemPayload => ({ line: read.line, customId: read.customId, code, message });
    if (read.problem !== null || read.customId === null) return refused('validation_error', read.problem ?? 'custom_id is required');
    const dto = validateAs(GenerateRequestDto, read.body);
    if (!dto.ok) return refused('validation_error', `body: ${dto.message}`);
    try {
      const body = dto.value;
      const checked = await this.checks.check(body, context, { batch: true });
      return {
        line: read.line,
        customId: read.customId,
        model: checked.model.id,
        prompt: body.prompt,
        type: body.type,
        input: checked.input,
        metadata: checked.metadata,
        credits: checked.credits,
        minimumCredits: checked.model.minimum_credits,
        webhookUrl: checked.webhookUrl,
      };
    } catch (error) {
      if (error instanceof DomainError) return refused(error.code, `body: ${error.message}`);
      throw error;
    }
  }
}
