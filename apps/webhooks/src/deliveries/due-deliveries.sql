-- Pending deliveries due by $2 and free to claim at $1, soonest first.
SELECT id, next_attempt_at FROM deliveries
WHERE status = 'pending' AND attempts_made < 3 AND next_attempt_at <= $2
  AND (lease_until IS NULL OR lease_until <= $1)
ORDER BY next_attempt_at LIMIT $3
