"""Batches with the Python SDK against a running standalone (tools/ci/python-sdk.sh starts it): every
call over real HTTP, the lines run by the service, a lost answer retried through a proxy."""
from __future__ import annotations

import json
import unittest
from typing import Any, Dict, List

from generation_service import GenerationApiError, GenerationClient

from .support import LossyProxy, environment, new_account


def line(n: int, model: str = "pixel-flux-1") -> Dict[str, Any]:
    return {"custom_id": "shot-%d" % n, "body": {"model": model, "prompt": "product shot %d" % n, "type": "TEXT_TO_IMAGE"}}


class BatchesAgainstStandalone(unittest.TestCase):
    def setUp(self) -> None:
        self.base_url = environment()[0]
        self.account = new_account(100)
        self.client = GenerationClient(api_key=self.account["api_key"]["key"], base_url=self.base_url)

    def test_creates_waits_and_reads_the_results_line_by_line(self) -> None:
        created = self.client.batches.create([line(1), line(2)], completion_window="1h", idempotency_key="py-batch-1")
        self.assertEqual((created["object"], created["completion_window"], created["request_counts"]["total"]), ("batch", "1h", 2))
        self.assertEqual(self.client.batches.create([line(1), line(2)], completion_window="1h", idempotency_key="py-batch-1")["id"], created["id"])
        done = self.client.batches.wait(created["id"], poll_interval_s=0.5, timeout_s=60)
        self.assertEqual((done["status"], done["request_counts"]["completed"]), ("completed", 2))
        # A line is charged the model's batch price (batch_credits, a discount where the operator set one).
        self.assertGreater(done["credits_charged"], 0)
        results = list(self.client.batches.results(created["id"]))
        self.assertEqual([(r["line"], r["custom_id"], r["outcome"]) for r in results], [(1, "shot-1", "completed"), (2, "shot-2", "completed")])
        self.assertIn("/cdn/", (results[0]["generation"] or {}).get("output_url") or "")
        self.assertEqual(list(self.client.batches.errors(created["id"])), [])
        self.assertEqual(self.client.credits.get()["available"], 100 - done["credits_charged"])

    def test_a_bad_line_refuses_the_file_and_skip_runs_the_good_ones(self) -> None:
        bad = dict(line(2), body=dict(line(2)["body"], model="fox-9"))
        text = "\n".join([json.dumps(line(1)), json.dumps(bad), '{"custom_id": '])
        with self.assertRaises(GenerationApiError) as raised:
            self.client.batches.create(text)
        error = raised.exception
        self.assertEqual((error.code, error.status), ("validation_error", 422))
        self.assertEqual([(p["line"], p["custom_id"]) for p in error.lines or []], [(2, "shot-2"), (3, None)])
        self.assertEqual(list(self.client.batches.list()), [])

        skipped = self.client.batches.create(text.encode("utf-8"), invalid_lines="skip")
        self.assertEqual(skipped["request_counts"]["invalid"], 2)
        self.assertEqual(self.client.batches.wait(skipped["id"], poll_interval_s=0.5, timeout_s=60)["status"], "completed")
        self.assertEqual([r["custom_id"] for r in self.client.batches.results(skipped["id"])], ["shot-1"])
        errors = list(self.client.batches.errors(skipped["id"]))
        self.assertEqual([(e["line"], e["outcome"], (e["error"] or {}).get("code")) for e in errors], [(2, "invalid", "validation_error"), (3, "invalid", "validation_error")])

    def test_an_uploaded_file_with_metadata_and_every_page(self) -> None:
        upload = self.client.uploads.create(json.dumps(line(1)).encode("utf-8") + b"\n", content_type="application/jsonl")
        first = self.client.batches.create(input_file_id=upload["id"], metadata={"run": "nightly"})
        self.assertEqual((first["metadata"], first["request_counts"]["total"]), ({"run": "nightly"}, 1))
        made: List[str] = [first["id"]] + [self.client.batches.create([line(n)])["id"] for n in (2, 3)]
        self.assertEqual([b["id"] for b in self.client.batches.list(limit=2)], made[::-1])
        page = self.client.batches.page(limit=2)
        self.assertEqual([b["id"] for b in self.client.batches.list(cursor=page["next_cursor"])], [first["id"]])

    def test_a_lost_answer_is_retried_with_the_same_key_one_batch(self) -> None:
        proxy = LossyProxy(self.base_url)
        self.addCleanup(proxy.close)
        client = GenerationClient(api_key=self.account["api_key"]["key"], base_url=proxy.url)
        proxy.fail(1, 503, retry_after="0")
        created = client.batches.create([line(1)])
        creates = [s for s in proxy.seen if s[2] == "/api/v1/batches" and s[1] == "POST"]
        self.assertEqual(len(creates), 2)
        self.assertEqual(creates[0][3], creates[1][3])
        self.assertEqual([b["id"] for b in self.client.batches.list()], [created["id"]])

    def test_cancel_and_an_unknown_batch(self) -> None:
        created = self.client.batches.create([line(n) for n in range(1, 6)])
        canceled = self.client.batches.cancel(created["id"])
        self.assertIn(canceled["status"], ("canceling", "canceled", "completed"))
        ended = self.client.batches.wait(created["id"], poll_interval_s=0.5, timeout_s=60)
        counts = ended["request_counts"]
        # Lines not admitted are canceled; admitted ones finish, or fail when their queued job is canceled.
        self.assertEqual(counts["completed"] + counts["canceled"] + counts["failed"], 5)
        self.assertGreater(counts["canceled"], 0)
        errors = list(self.client.batches.errors(created["id"]))
        self.assertEqual(len(errors), counts["canceled"] + counts["failed"])
        self.assertEqual(len(list(self.client.batches.results(created["id"]))), counts["completed"])
        with self.assertRaises(GenerationApiError) as raised:
            self.client.batches.get("00000000-0000-4000-8000-000000000000")
        self.assertEqual((raised.exception.code, raised.exception.status), ("not_found", 404))


if __name__ == "__main__":
    unittest.main()
