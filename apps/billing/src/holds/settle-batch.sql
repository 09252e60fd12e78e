-- One row per item, o_item counting from 1 (settle-batch.function.sql).
SELECT o_item, o_amount FROM settle_batch($1::uuid[], $2::text[], $3::text[])
