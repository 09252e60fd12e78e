-- New deliveries in one statement; the first ones ($12) stored claimed for attempt 1, leased to $13 until $14, with that attempt in flight.
-- The bodies arrive as one binary parameter ($10), each at its offset ($17) for its length ($18): sent
-- as they are, where an array of bytea would be written out in hex and escaped.
WITH input AS (
  SELECT t.id, t.event_id, t.redelivery_of, t.job_id, t.account_id, t.api_key_id, t.event, t.url, t.url_source,
         substring($10::bytea FROM t.body_offset + 1 FOR t.body_length) AS body, t.next_attempt_at, t.claimed, t.test
  FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[],
              $9::text[], $17::integer[], $18::integer[], $11::timestamptz[], $12::boolean[], $16::boolean[])
    AS t(id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body_offset, body_length, next_attempt_at, claimed, test)
), inserted AS (
  INSERT INTO deliveries (id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body,
                          status, attempts_made, next_attempt_at, lease_token, lease_until, test)
  SELECT id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body,
         'pending', CASE WHEN claimed THEN 1 ELSE 0 END, next_attempt_at,
         CASE WHEN claimed THEN $13::uuid END, CASE WHEN claimed THEN $14::timestamptz END, test
  FROM input
  ON CONFLICT DO NOTHING
  RETURNING id, attempts_made
), started AS (
  INSERT INTO attempts (delivery_id, number, started_at) SELECT id, 1, $15::timestamptz FROM inserted WHERE attempts_made = 1
)
SELECT id, attempts_made FROM inserted
