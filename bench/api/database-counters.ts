import { Client } from 'pg';
import { sleep } from '../support/processes';

/**
 * A backend publishes its counters when it commits at least a second after it last did, or when it
 * exits; an idle connection keeps the rest to itself (measured on PostgreSQL 15). The service's
 * pools close a connection after 10 s idle (pg-pool's default, which TypeORM keeps), so this long
 * after the service's last request every connection the load used has published, or closed.
 */
const SETTLE_MS = 12_000;

export interface Counters {
  at: number;
  /** Transactions committed in the service's database (pg_stat_database.xact_commit), read-only ones included. */
  transactions: number;
  /** Rows inserted, updated and deleted in it. */
  rowsWritten: number;
}

/** Per request of one run, net of the service's background work (pollers, relays) at its idle rate. */
export interface PerRequest {
  transactions: number;
  rowsWritten: number;
}

/**
 * What the service's requests cost its database, from the cumulative counters of the service's
 * own database (the floor has a database of its own). The counters include the service's
 * background work; its rate is measured while the service is idle and taken off.
 */
export class DatabaseCounters {
  private busyUntil = performance.now();
  private idleRate: Counters = { at: 0, transactions: 0, rowsWritten: 0 };

  constructor(
    private readonly adminUrl: string,
    private readonly database: string,
  ) {}

  /** The service has just been busy: the next settled() reading waits until its counters are published. */
  busy(): void {
    this.busyUntil = performance.now();
  }

  /** The counters once everything the service did so far is published. */
  async settled(): Promise<Counters> {
    await sleep(Math.max(0, this.busyUntil + SETTLE_MS - performance.now()));
    return this.read();
  }

  /** Records the service's background rate between two settled readings taken while it was idle. */
  idleBetween(from: Counters, to: Counters): void {
    const seconds = (to.at - from.at) / 1000;
    this.idleRate = { at: 0, transactions: (to.transactions - from.transactions) / seconds, rowsWritten: (to.rowsWritten - from.rowsWritten) / seconds };
  }

  perRequest(from: Counters, to: Counters, requests: number): PerRequest {
    const seconds = (to.at - from.at) / 1000;
    const net = (key: 'transactions' | 'rowsWritten') => Math.max(0, to[key] - from[key] - this.idleRate[key] * seconds) / requests;
    return { transactions: net('transactions'), rowsWritten: net('rowsWritten') };
  }

  private async read(): Promise<Counters> {
    const client = new Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ xact_commit: string; written: string }>(
        'SELECT xact_commit, tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = $1',
        [this.database],
      );
      return { at: performance.now(), transactions: Number(rows[0].xact_commit), rowsWritten: Number(rows[0].written) };
    } finally {
      await client.end();
    }
  }
}
