-- Attempts' outcomes and each delivery's next attempt, for the lease holders only; committed
-- without waiting for the WAL flush (set_config: SET LOCAL for the statement's own transaction).
WITH input AS (
  SELECT t.* FROM unnest($1::text[], $2::uuid[], $3::smallint[], $4::timestamptz[], $5::integer[], $6::smallint[],
                         $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::timestamptz[])
      AS t(id, lease_token, number, started_at, duration_ms, status_code, error_class, error, status, next_attempt_at, finished_at),
    (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
), attempt AS (
  UPDATE attempts a SET started_at = i.started_at, duration_ms = i.duration_ms, status_code = i.status_code,
                        error_class = i.error_class, error = i.error
  FROM input i WHERE a.delivery_id = i.id AND a.number = i.number
)
UPDATE deliveries d SET status = i.status, next_attempt_at = i.next_attempt_at, finished_at = i.finished_at,
                        lease_token = NULL, lease_until = NULL
FROM input i WHERE d.id = i.id AND d.lease_token = i.lease_token AND d.status = 'pending'
RETURNING d.id
