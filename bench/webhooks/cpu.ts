import { Client } from 'pg';
import { processCpuMs } from '../support/cpu';

/**
 * CPU time spent per delivery, by process: where a delivery's cost goes, and why the dispatcher's
 * rate is what it is on a machine whose cores the benchmark's processes share.
 *
 * Linux only (`/proc/<pid>/stat`); elsewhere every reading is NaN and the table says n/a.
 * PostgreSQL's own background processes (WAL writer, checkpointer, autovacuum) are not counted:
 * only the backends serving the benchmark's database.
 */

export interface CpuSample {
  self: number;
  /** Per backend pid. */
  postgres: Map<number, number>;
  receiver: number;
}

export interface CpuPerDelivery {
  /** µs of CPU per delivery in the benchmark's own process (the dispatcher, or the bare loop). */
  self: number;
  /** µs in the PostgreSQL backends of the benchmark's database. */
  postgres: number;
  /** µs in the receiver process. */
  receiver: number;
}

/** Reads the CPU used so far by this process, the database's backends and the receiver. */
export class CpuMeter {
  private constructor(
    private readonly admin: Client,
    private readonly database: string,
    private readonly receiverPid: number,
  ) {}

  static async open(adminUrl: string, database: string, receiverPid: number): Promise<CpuMeter> {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    return new CpuMeter(admin, database, receiverPid);
  }

  /** The backends are listed at each reading: the pool may have opened connections since. */
  async sample(): Promise<CpuSample> {
    const { rows } = await this.admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [this.database]);
    const usage = process.cpuUsage();
    return {
      self: (usage.user + usage.system) / 1000,
      postgres: new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)])),
      receiver: processCpuMs(this.receiverPid),
    };
  }

  /**
   * µs per delivery between two samples. A backend opened in between counts from zero; one closed
   * in between is not counted (the pool keeps its connections during a round).
   */
  static perDelivery(before: CpuSample, after: CpuSample, deliveries: number): CpuPerDelivery {
    const per = (ms: number) => (deliveries > 0 ? (ms * 1000) / deliveries : Number.NaN);
    let postgres = 0;
    for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
    return { self: per(after.self - before.self), postgres: per(postgres), receiver: per(after.receiver - before.receiver) };
  }

  async close(): Promise<void> {
    await this.admin.end();
  }
}
