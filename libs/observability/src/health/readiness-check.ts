/**
 * One thing /readyz verifies. `check` resolves (optionally with details) when the dependency
 * answers, and rejects (or times out) when it does not.
 */
export interface ReadinessCheck {
  /** Key in the /readyz report, e.g. `postgres:billing`, `nats`, `service:generation`. */
  name: string;
  check(): Promise<Record<string, unknown> | void>;
}

/** Default bound of one check: a probe must answer fast even when a dependency hangs. */
export const CHECK_TIMEOUT_MS = 2_000;

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Anything with `query` (a TypeORM DataSource). */
export interface SqlPingable {
  query(sql: string): Promise<unknown>;
  readonly isInitialized?: boolean;
}

/** The service's PostgreSQL answers `SELECT 1` through its own pool. */
export function postgresCheck(name: string, db: SqlPingable, timeoutMs = CHECK_TIMEOUT_MS): ReadinessCheck {
  return {
    name,
    async check() {
      if (db.isInitialized === false) throw new Error('connection pool is closed');
      await withTimeout(db.query('SELECT 1'), timeoutMs, 'PostgreSQL');
    },
  };
}

/** A NATS connection: open, and the server answers a PING (flush) in time. */
export interface NatsPingable {
  isClosed(): boolean;
  flush(): Promise<void>;
  getServer(): string;
}

export function natsCheck(name: string, connection: () => Promise<NatsPingable>, timeoutMs = CHECK_TIMEOUT_MS): ReadinessCheck {
  return {
    name,
    async check() {
      const nc = await withTimeout(connection(), timeoutMs, 'NATS connect');
      if (nc.isClosed()) throw new Error('connection closed');
      const started = Date.now();
      await withTimeout(nc.flush(), timeoutMs, 'NATS');
      return { server: nc.getServer(), rttMs: Date.now() - started };
    },
  };
}

/** Another service answers its health subject (request/reply over the service transport). */
export function servicePingCheck(
  service: string,
  ping: (timeoutMs: number) => Promise<unknown>,
  timeoutMs = CHECK_TIMEOUT_MS,
): ReadinessCheck {
  return {
    name: `service:${service}`,
    async check() {
      await withTimeout(ping(timeoutMs), timeoutMs + 100, service);
    },
  };
}

/** A check that is true or false right now (e.g. the NATS server side of this process is connected). */
export function flagCheck(name: string, healthy: () => boolean, message: string): ReadinessCheck {
  return {
    name,
    check() {
      return healthy() ? Promise.resolve() : Promise.reject(new Error(message));
    },
  };
}
