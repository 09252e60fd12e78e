-- A page of one account's ledger, newest first, each row with the available balance right after it:
-- `available` less what the rows newer than the page moved and the page's rows before it.
WITH page AS (
  SELECT id, kind, available_delta, held_delta, job_id, model_id, note, created_at
  FROM ledger WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
  ORDER BY id DESC LIMIT $3
), newer AS (
  SELECT coalesce(sum(available_delta), 0) AS delta FROM ledger
  WHERE account_id = $1 AND id > (SELECT max(id) FROM page)
)
SELECT p.*, a.available - n.delta
            - coalesce(sum(p.available_delta) OVER (ORDER BY p.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
            AS balance_after
FROM page p CROSS JOIN newer n JOIN accounts a ON a.account_id = $1
ORDER BY p.id DESC
