import { Injectable } from '@nestjs/common';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Readings closer together than this return the previous one: a shorter window is mostly noise. */
const MIN_WINDOW_MS = 200;

/**
 * How busy this process's event loop has been lately, in percent of the time: the share the batch
 * feeder leaves to interactive work (docs/design/batches.md, "Yielding to a busy process"). Read at
 * each feeder pass: the utilization over the time since the previous reading (at least 200 ms).
 */
@Injectable()
export class EventLoopLoad {
  private since: EventLoopUtilization = performance.eventLoopUtilization();
  private sinceAt = performance.now();
  private last = 0;

  busyPercent(): number {
    const now = performance.now();
    if (now - this.sinceAt < MIN_WINDOW_MS) return this.last;
    const current = performance.eventLoopUtilization();
    this.last = Math.round(performance.eventLoopUtilization(current, this.since).utilization * 100);
    this.since = current;
    this.sinceAt = now;
    return this.last;
  }
}
