import { Injectable, Logger } from '@nestjs/common';
import { OutputStorage } from '@gen/storage';
import type { EngineOutput } from '../../ports/engine';
import type { JobOutput } from '../job.entity';
import { JobReadsRepository } from '../job-reads.repository';

/** The files of a run's outputs: stored before the job is finished, removed when the job could not keep them. */
@Injectable()
export class JobOutputs {
  private readonly logger = new Logger(JobOutputs.name);

  constructor(
    private readonly storage: OutputStorage,
    private readonly jobs: JobReadsRepository,
  ) {}

  /**
   * Stores every output, in order. An engine that produced none failed (a bug of the engine, never
   * a completed job without an output). If one write fails, those already written are removed.
   */
  async store(jobId: string, outputs: readonly EngineOutput[]): Promise<JobOutput[]> {
    if (outputs.length === 0) throw new Error('the engine returned no output');
    const stored: JobOutput[] = [];
    try {
      for (const output of outputs) {
        const key = output.stored ? output.stored.key : await this.storage.put(output.data, output.extension);
        stored.push({
          key,
          content_type: output.contentType,
          bytes: output.stored ? output.stored.bytes : output.data.length,
          ...(output.width !== undefined && { width: output.width }),
          ...(output.height !== undefined && { height: output.height }),
          ...(output.durationS !== undefined && { duration_s: output.durationS }),
        });
      }
    } catch (error) {
      // Objects the engine already streamed in, past the one that failed, go too.
      const streamed = outputs.slice(stored.length).flatMap((o) => (o.stored ? [{ key: o.stored.key, content_type: o.contentType, bytes: o.stored.bytes }] : []));
      await this.discard(jobId, [...stored, ...streamed]);
      throw error;
    }
    return stored;
  }

  /**
   * The job was not ours to finish: we lost it while storing its outputs, and nothing will ever point
   * at these files. Unless our own finish did commit and only its answer was lost (a retry found the
   * job final with these very outputs): then the files are the job's.
   */
  async discard(jobId: string, outputs: readonly JobOutput[]): Promise<void> {
    if (outputs.length === 0) return;
    try {
      if ((await this.jobs.findById(jobId))?.outputKey === outputs[0].key) return;
      for (const output of outputs) await this.storage.delete(output.key);
    } catch (error) {
      this.logger.warn({ err: error, jobId }, 'Could not remove the outputs of a job we no longer own');
    }
  }
}
