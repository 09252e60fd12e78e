SELECT account_id, plan, requests_per_minute, parallel_tasks, available, held FROM accounts WHERE account_id = $1
