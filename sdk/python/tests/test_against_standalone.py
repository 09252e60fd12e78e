"""The Python SDK against a running standalone (tools/ci/python-sdk.sh starts it): every call over real
HTTP, real webhook deliveries in both signature schemes, retries through a proxy that loses answers."""
from __future__ import annotations

import json
import socket
import time
import typing
import unittest
import urllib.request

from generation_service import (
    Batch,
    BatchLineError,
    BatchLineResult,
    BatchPage,
    BatchRequestCounts,
    Credits,
    Generation,
    GenerationApiError,
    GenerationClient,
    GenerationOutput,
    LedgerEntry,
    Model,
    PlanLimits,
    Upload,
    WebhookEvent,
    WebhookVerificationError,
    verify_webhook,
)

from .support import LossyProxy, Receiver, cli, environment, new_account

IMAGE = {"model": "pixel-flux-1", "prompt": "a lighthouse at dusk", "type": "TEXT_TO_IMAGE"}
AUDIO = {"model": "tone-weaver-1", "prompt": "a bell", "type": "TEXT_TO_AUDIO"}
VIDEO = {"model": "motion-lite-1", "prompt": "a slow wave", "type": "TEXT_TO_VIDEO"}


class AgainstStandalone(unittest.TestCase):
    base_url: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.base_url = environment()[0]
        cls.account = new_account()
        cls.client = GenerationClient(api_key=cls.account["api_key"]["key"], base_url=cls.base_url)

    def test_types_match_the_openapi_document(self) -> None:
        with urllib.request.urlopen(self.base_url + "/api/v1/openapi.json", timeout=30) as response:
            # The document names its schemas after the server's classes: GenerationDto for Generation.
            schemas = {name[:-3] if name.endswith("Dto") else name: schema for name, schema in json.load(response)["components"]["schemas"].items()}
        for name, typed in [("Generation", Generation), ("GenerationOutput", GenerationOutput), ("Model", Model), ("Credits", Credits),
                            ("PlanLimits", PlanLimits), ("LedgerEntry", LedgerEntry), ("WebhookEvent", WebhookEvent),
                            ("Upload", Upload), ("Batch", Batch), ("BatchRequestCounts", BatchRequestCounts),
                            ("BatchLineResult", BatchLineResult), ("BatchLineError", BatchLineError), ("BatchPage", BatchPage)]:
            with self.subTest(schema=name):
                self.assertEqual(sorted(typing.get_type_hints(typed)), sorted(schemas[name]["properties"]))

    def test_creates_with_an_idempotency_key_reads_and_lists_every_page(self) -> None:
        first = self.client.generations.create(**IMAGE, idempotency_key="py-sdk-1", metadata={"order": "A-1"})
        self.assertEqual((first["status"], first["metadata"]), ("completed", {"order": "A-1"}))
        self.assertIn("/cdn/", first["output_url"] or "")
        again = self.client.generations.create(**IMAGE, idempotency_key="py-sdk-1", metadata={"order": "A-1"})
        self.assertEqual(again["id"], first["id"])
        self.assertEqual(self.client.generations.get(first["id"])["status"], "completed")

        own = new_account(100)
        client = GenerationClient(api_key=own["api_key"]["key"], base_url=self.base_url)
        made = [client.generations.create(model="pixel-flux-1", prompt="page %d" % i, type="TEXT_TO_IMAGE")["id"] for i in range(5)]
        self.assertEqual([g["id"] for g in client.generations.list(limit=2, type="TEXT_TO_IMAGE")], made[::-1])
        self.assertEqual(list(client.generations.list(status="failed")), [])
        self.assertEqual(client.credits.get()["available"], 100 - 5 * 4)
        self.assertEqual(len([e for e in client.credits.ledger(limit=3) if e["kind"] == "capture"]), 5)

    def test_models(self) -> None:
        models = self.client.models.list()
        self.assertIn("pixel-flux-1", [m["id"] for m in models])
        self.assertEqual(self.client.models.get("pixel-flux-1")["type"], "TEXT_TO_IMAGE")
        with self.assertRaises(GenerationApiError) as raised:
            self.client.models.get("no-such-model")
        self.assertEqual((raised.exception.code, raised.exception.status), ("not_found", 404))

    def test_errors_carry_the_envelope(self) -> None:
        with self.assertRaises(GenerationApiError) as raised:
            self.client.generations.create(model="pixel-flux-1", prompt="", type="TEXT_TO_IMAGE")
        error = raised.exception
        self.assertEqual((error.code, error.status), ("validation_error", 422))
        self.assertIn("prompt", error.message)
        self.assertTrue(error.request_id)
        with self.assertRaises(GenerationApiError) as raised:
            GenerationClient(api_key="gsk_live_wrong", base_url=self.base_url).credits.get()
        self.assertEqual((raised.exception.code, raised.exception.status), ("unauthorized", 401))

    def test_streams_and_waits_for_an_asynchronous_generation(self) -> None:
        job = self.client.generations.create(**AUDIO)
        self.assertIn(job["status"], ("queued", "processing"))
        events = list(self.client.generations.stream(job["id"]))
        self.assertEqual(events[-1].event, "completed")
        self.assertTrue(all(e.data["id"] == job["id"] for e in events))
        self.assertEqual(len({json.dumps(e.data) for e in events}), len(events))  # no record given twice
        done = self.client.generations.wait(job["id"], timeout_s=60)
        self.assertEqual(done["status"], "completed")
        self.assertEqual(done["credits_charged"], events[-1].data["credits_charged"])

    def test_cancels_and_a_wait_times_out(self) -> None:
        job = self.client.generations.create(**VIDEO, cancel_after="10m")
        with self.assertRaises(GenerationApiError) as raised:
            self.client.generations.wait(job["id"], timeout_s=0.3)
        self.assertEqual((raised.exception.code, raised.exception.status), ("timeout", 0))
        canceled = self.client.generations.cancel(job["id"])
        self.assertEqual((canceled["status"], canceled["credits_charged"]), ("failed", 0))
        self.assertIsNotNone(canceled["canceled_at"])
        self.assertEqual(self.client.generations.wait(job["id"], timeout_s=10)["status"], "failed")
        finished = self.client.generations.create(**IMAGE)
        with self.assertRaises(GenerationApiError) as raised:
            self.client.generations.cancel(finished["id"])
        self.assertEqual((raised.exception.code, raised.exception.status), ("conflict", 409))

    def test_retries_a_lost_create_with_the_same_key_honouring_retry_after(self) -> None:
        proxy = LossyProxy(self.base_url)
        self.addCleanup(proxy.close)
        client = GenerationClient(api_key=self.account["api_key"]["key"], base_url=proxy.url, max_retries=2)
        before = self.client.credits.get()["available"]
        proxy.fail(1, 503, retry_after="1")
        generation = client.generations.create(**IMAGE)
        creates = [s for s in proxy.seen if s[2] == "/api/v1/generate"]
        self.assertEqual(len(creates), 2)
        self.assertEqual(creates[0][3], creates[1][3])  # the same Idempotency-Key, made by the SDK
        self.assertGreaterEqual(creates[1][0] - creates[0][0], 0.95)  # Retry-After: 1
        self.assertEqual(self.client.credits.get()["available"], before - 4)  # charged once
        self.assertEqual(len([g for g in self.client.generations.list(limit=50) if g["id"] == generation["id"]]), 1)

        proxy.fail(3, 429, retry_after="0")
        with self.assertRaises(GenerationApiError) as raised:
            client.credits.get()
        self.assertEqual((raised.exception.status, raised.exception.request_id, raised.exception.retry_after_s), (429, "req_proxy", 0.0))
        self.assertEqual(len([s for s in proxy.seen if s[2] == "/api/v1/credits"]), 3)  # the call and max_retries more

    def test_a_dropped_stream_resumes_with_last_event_id(self) -> None:
        proxy = LossyProxy(self.base_url)
        self.addCleanup(proxy.close)
        client = GenerationClient(api_key=self.account["api_key"]["key"], base_url=proxy.url)
        job = self.client.generations.create(**VIDEO)
        proxy.drop_streams = 1
        streams = lambda: [s for s in proxy.seen if s[2].endswith("/events")]  # noqa: E731
        stream = client.generations.stream(job["id"])
        events = [next(stream)]  # the first event; the proxy cuts the stream after it
        # Canceled while the SDK is cut off (it reconnects after the stream's `retry`, 3 s, as long as
        # the video takes): the resumed stream must bring the event it missed.
        self.client.generations.cancel(job["id"])
        events.extend(stream)
        self.assertEqual(len(streams()), 2)
        reconnect = proxy.last_event_ids[[i for i, s in enumerate(proxy.seen) if s[2].endswith("/events")][1]]
        self.assertEqual(reconnect, events[0].id)  # the id of the event the dropped stream gave
        self.assertEqual(events[-1].event, "failed")
        self.assertEqual(len({json.dumps(e.data, sort_keys=True) for e in events}), len(events))  # nothing twice

    def test_uploads_a_file_never_retried(self) -> None:
        png = b"\x89PNG\r\n\x1a\n" + b"\x07" * 504  # a PNG as far as the service's sniffing goes
        upload = self.client.uploads.create(png, content_type="image/png")
        self.assertRegex(upload["id"], r"^upl_[0-9a-f]{24}$")
        self.assertEqual((upload["content_type"], upload["bytes"]), ("image/png", 512))
        with urllib.request.urlopen(upload["url"], timeout=30) as response:
            self.assertEqual(response.read(), png)
        with self.assertRaises(GenerationApiError) as raised:
            self.client.uploads.create(png, content_type="image/jpeg")
        self.assertEqual((raised.exception.code, raised.exception.status), ("validation_error", 422))

        proxy = LossyProxy(self.base_url)
        self.addCleanup(proxy.close)
        proxy.fail(1, 503, retry_after="0")
        with self.assertRaises(GenerationApiError) as raised:
            GenerationClient(api_key=self.account["api_key"]["key"], base_url=proxy.url).uploads.create(png, content_type="image/png")
        self.assertEqual(raised.exception.status, 503)
        self.assertEqual(len([s for s in proxy.seen if s[2] == "/api/v1/uploads"]), 1)  # a repeat would store the file twice

    def test_no_answer_is_a_connection_error_after_the_retries(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = GenerationClient(api_key="gsk_live_x", base_url="http://127.0.0.1:%d" % port, max_retries=1)
        started = time.monotonic()
        with self.assertRaises(GenerationApiError) as raised:
            client.generations.get("00000000-0000-4000-8000-000000000000")
        self.assertEqual((raised.exception.code, raised.exception.status, raised.exception.request_id), ("connection_error", 0, None))
        self.assertGreaterEqual(time.monotonic() - started, 0.25)  # one retry after a backoff


class RealWebhooks(unittest.TestCase):
    """The service's deliveries, received on a local receiver and verified with verify_webhook."""

    def test_both_schemes_and_a_rotation_with_overlap(self) -> None:
        base_url = environment()[0]
        receiver = Receiver()
        self.addCleanup(receiver.close)
        account = new_account()
        ids = ["--account", account["account_id"], "--key", account["api_key"]["id"]]
        secret = cli("keys", "set-webhook-url", *ids, "--url", receiver.url)["webhook_secret"]
        client = GenerationClient(api_key=account["api_key"]["key"], base_url=base_url)

        def delivered(generation_id: str):
            return receiver.wait_for(lambda body, _: json.loads(body)["id"] == generation_id)

        body, headers = delivered(client.generations.create(**IMAGE)["id"])
        verified = verify_webhook(body, headers, secret)
        self.assertEqual((verified.scheme, verified.event["event"], verified.test), ("service", "generation.completed", False))
        self.assertEqual(verified.delivery_id, headers["X-Service-Delivery-Id"])
        for payload, key, now, reason in [
            (body + b" ", secret, None, "signature_mismatch"),
            (body, secret[:-1] + ("A" if secret[-1] != "A" else "B"), None, "signature_mismatch"),
            (body, secret, time.time() + 301, "timestamp_out_of_tolerance"),
        ]:
            with self.subTest(reason=reason), self.assertRaises(WebhookVerificationError) as raised:
                verify_webhook(payload, headers, key, now=now)
            self.assertEqual(raised.exception.reason, reason)

        cli("keys", "set-webhook-scheme", *ids, "--scheme", "standard")
        failed = client.generations.create(**VIDEO)
        client.generations.cancel(failed["id"])
        body, headers = delivered(failed["id"])
        self.assertIsNone(headers.get("X-Service-Signature"))
        verified = verify_webhook(body, headers, secret)
        self.assertEqual((verified.scheme, verified.event["event"], verified.delivery_id), ("standard", "generation.failed", headers["webhook-id"]))

        rotated = cli("keys", "secret", *ids, "--overlap", "1h")["webhook_secret"]
        self.assertNotEqual(rotated, secret)
        body, headers = delivered(client.generations.create(**IMAGE)["id"])
        self.assertEqual(len(headers["webhook-signature"].split(" ")), 2)
        for one in (secret, rotated, [rotated, "whsec_" + "A" * 32]):
            self.assertEqual(verify_webhook(body, headers, one).scheme, "standard")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(body, headers, "whsec_" + "A" * 32)

        # An account event, signed the same way: the available credits fall below the threshold set.
        available = client.credits.get()["available"]
        cli("accounts", "set-low-balance", "--account", account["account_id"], "--credits", str(available - 1))
        client.generations.create(**IMAGE)
        body, headers = receiver.wait_for(lambda b, _: json.loads(b)["event"] == "account.low_balance")
        event = verify_webhook(body, headers, rotated).event
        self.assertEqual((event["event"], event["account_id"], event["threshold"], event["available"]), ("account.low_balance", account["account_id"], available - 1, available - 4))


if __name__ == "__main__":
    unittest.main()
