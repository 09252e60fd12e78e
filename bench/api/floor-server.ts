import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The floor of `bench:api` (a child process of main.ts): a bare Fastify server doing the database
 * work of each route once, with plain `pg` (no ORM, no auth, no logging), on the service's
 * PostgreSQL server, in a database of its own (floor.ts):
 *   GET  /api/v1/generations/:id          one SELECT by id from generation.jobs (the service's definition, a copy of its rows)
 *   POST /floor/accounts/:id/debit        one UPDATE ... RETURNING of the account's balance row
 *   GET  /memory/generations/:id          the same row from memory, no database: the client's ceiling
 * Environment: DATABASE_URL, PORT, POOL_SIZE. Prints "floor listening at <url>" when ready; stops on SIGTERM.
 */
async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const pool = new Pool({ connectionString: databaseUrl, max: Number(process.env.POOL_SIZE ?? 20), idleTimeoutMillis: 2_000 });
  const inMemory = new Map<string, unknown>();
  for (const row of (await pool.query<{ id: string }>('SELECT * FROM generation.jobs')).rows) inMemory.set(row.id, row);

  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/api/v1/generations/:id', async (request, reply) => {
    const { rows } = await pool.query('SELECT * FROM generation.jobs WHERE id = $1', [request.params.id]);
    return rows.length === 1 ? rows[0] : reply.code(404).send({ error: 'not found' });
  });
  app.post<{ Params: { id: string } }>('/floor/accounts/:id/debit', async (request, reply) => {
    const { rows } = await pool.query<{ available: string }>(
      'UPDATE floor_accounts SET available = available - 1 WHERE id = $1 AND available >= 1 RETURNING available',
      [request.params.id],
    );
    return rows.length === 1 ? { available: Number(rows[0].available) } : reply.code(402).send({ error: 'insufficient credits' });
  });
  app.get<{ Params: { id: string } }>('/memory/generations/:id', async (request, reply) => {
    const row = inMemory.get(request.params.id);
    return row ?? reply.code(404).send({ error: 'not found' });
  });
  const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stdout.write(`floor listening at ${url}\n`);
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`floor server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
