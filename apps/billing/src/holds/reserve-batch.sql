-- One row per item, o_item counting from 1 (reserve-batch.function.sql).
SELECT o_item, o_outcome, o_hold_id, o_available, o_cap_period, o_cap, o_spent
FROM reserve_batch($1::uuid[], $2::uuid[], $3::integer[], $4::bigint[], $5::text[], $6::uuid[])
