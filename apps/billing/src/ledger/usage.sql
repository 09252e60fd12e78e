-- Captured credits and charged generations per UTC day and model over the last $2 days, with the
-- totals per day, per model and overall (GROUPING SETS), and the refunds (releases) of the period.
WITH period AS (
  SELECT (now() AT TIME ZONE 'UTC')::date - ($2::int - 1) AS first_day, (now() AT TIME ZONE 'UTC')::date AS last_day
), settled AS (
  SELECT to_char((l.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, coalesce(l.model_id, 'unknown') AS model,
         l.kind, -l.held_delta AS amount
  FROM ledger l, period
  WHERE l.account_id = $1 AND l.kind IN ('capture', 'release')
    AND l.created_at >= period.first_day::timestamp AT TIME ZONE 'UTC'
)
SELECT s.day, s.model,
       coalesce(sum(s.amount) FILTER (WHERE s.kind = 'capture'), 0)::bigint AS credits,
       count(*) FILTER (WHERE s.kind = 'capture')::int AS generations,
       count(*) FILTER (WHERE s.kind = 'release')::int AS refunds,
       GROUPING(s.day)::int AS by_model, GROUPING(s.model)::int AS by_day,
       to_char((SELECT first_day FROM period), 'YYYY-MM-DD') AS from_day,
       to_char((SELECT last_day FROM period), 'YYYY-MM-DD') AS to_day
FROM settled s
GROUP BY GROUPING SETS ((s.day, s.model), (s.day), (s.model), ())
