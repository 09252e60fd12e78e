-- One row per item (job columns all null), then one per job claimed (outcome 'claimed'): admit-batch.function.sql.
SELECT r.item, r.outcome, r.queued, r.processing, /*columns*/ (r.job).*
FROM admit_batch($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[], $10::int[],
                 $11::int[], $12::text, $13::int, $14::int[], $15::jsonb[], $16::jsonb[]) AS r
