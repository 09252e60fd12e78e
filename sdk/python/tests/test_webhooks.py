"""verify_webhook on known answers: the service scheme's from docs/guide/webhook-receivers.md, Standard Webhooks' from
the `standardwebhooks` reference library (Webhook.sign with the same id, timestamp and body)."""
from __future__ import annotations

import email.message
import unittest

from generation_service import WebhookVerificationError, verify_webhook

BODY = b'{"event":"generation.completed","id":"gen_01HZX3","status":"completed"}'
TIMESTAMP = "1700000000"
SERVICE_SECRET = "whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1"
SERVICE_SIGNATURE = "sha256=3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016"
STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
STANDARD_SIGNATURE = "v1,phxzzpdxRzR3M5TFZ2HK4i32rm/EREVXRSvZrrwCRvQ="
OTHER_SECRET = "whsec_dGhlIG90aGVyIHNlY3JldCBvZiAzMiBieXRlcyEh"
OTHER_SIGNATURE = "v1,pAms89hLTf7t2w9mL3jwxOCi5HYsbFOYOrIVg8ac6Gw="
DELIVERY = "wh_4fQ9mZ2xLr7TbN1cVw8KpD3s"
NOW = 1700000100


def service_headers(**changes: str):
    headers = {"X-Service-Timestamp": TIMESTAMP, "X-Service-Signature": SERVICE_SIGNATURE, "X-Service-Delivery-Id": DELIVERY}
    headers.update(changes)
    return headers


def standard_headers(signature: str = STANDARD_SIGNATURE):
    return {"webhook-id": DELIVERY, "webhook-timestamp": TIMESTAMP, "webhook-signature": signature}


class ServiceScheme(unittest.TestCase):
    def test_accepts_the_documented_known_answer(self) -> None:
        verified = verify_webhook(BODY, service_headers(), SERVICE_SECRET, now=NOW)
        self.assertEqual(verified.event["id"], "gen_01HZX3")
        self.assertEqual((verified.delivery_id, verified.timestamp, verified.scheme, verified.test), (DELIVERY, 1700000000, "service", False))

    def test_reads_headers_in_any_case_from_a_mapping_a_message_or_pairs(self) -> None:
        message = email.message.Message()
        for name, value in service_headers().items():
            message[name.lower()] = value
        pairs = [(name.upper(), value) for name, value in service_headers().items()]
        for headers in (message, pairs, {k.lower(): v for k, v in service_headers().items()}):
            self.assertEqual(verify_webhook(BODY.decode(), headers, SERVICE_SECRET, now=NOW).scheme, "service")

    def test_accepts_any_secret_of_a_list(self) -> None:
        self.assertEqual(verify_webhook(BODY, service_headers(), [OTHER_SECRET, SERVICE_SECRET], now=NOW).delivery_id, DELIVERY)

    def test_refuses_a_changed_body_a_wrong_secret_or_a_stale_timestamp(self) -> None:
        cases = [
            (BODY + b" ", service_headers(), SERVICE_SECRET, NOW, "signature_mismatch"),
            (BODY, service_headers(), OTHER_SECRET, NOW, "signature_mismatch"),
            (BODY, service_headers(**{"X-Service-Timestamp": "1700000001"}), SERVICE_SECRET, NOW, "signature_mismatch"),
            (BODY, service_headers(), SERVICE_SECRET, 1700000000 + 301, "timestamp_out_of_tolerance"),
            (BODY, service_headers(), SERVICE_SECRET, 1700000000 - 301, "timestamp_out_of_tolerance"),
            (BODY, service_headers(**{"X-Service-Signature": SERVICE_SIGNATURE.upper()}), SERVICE_SECRET, NOW, "malformed_header"),
            (BODY, service_headers(**{"X-Service-Timestamp": "17e8"}), SERVICE_SECRET, NOW, "malformed_header"),
            (BODY, {"X-Service-Signature": SERVICE_SIGNATURE}, SERVICE_SECRET, NOW, "missing_header"),
        ]
        for payload, headers, secret, now, reason in cases:
            with self.subTest(reason=reason, headers=headers):
                with self.assertRaises(WebhookVerificationError) as raised:
                    verify_webhook(payload, headers, secret, now=now)
                self.assertEqual(raised.exception.reason, reason)

    def test_refuses_a_repeated_signature_header(self) -> None:
        pairs = list(service_headers().items()) + [("x-service-signature", SERVICE_SIGNATURE)]
        with self.assertRaises(WebhookVerificationError) as raised:
            verify_webhook(BODY, pairs, SERVICE_SECRET, now=NOW)
        self.assertEqual(raised.exception.reason, "malformed_header")

    def test_wants_the_raw_body_not_a_parsed_object(self) -> None:
        with self.assertRaises(TypeError):
            verify_webhook({"id": "gen_01HZX3"}, service_headers(), SERVICE_SECRET, now=NOW)  # type: ignore[arg-type]

    def test_a_test_event_says_so(self) -> None:
        self.assertTrue(verify_webhook(BODY, service_headers(**{"X-Service-Test": "true"}), SERVICE_SECRET, now=NOW).test)


class StandardWebhooks(unittest.TestCase):
    def test_accepts_the_reference_librarys_signature(self) -> None:
        verified = verify_webhook(BODY, standard_headers(), STANDARD_SECRET, now=NOW)
        self.assertEqual((verified.scheme, verified.delivery_id, verified.timestamp), ("standard", DELIVERY, 1700000000))

    def test_accepts_either_of_several_signatures_during_a_rotation(self) -> None:
        both = standard_headers(OTHER_SIGNATURE + " " + STANDARD_SIGNATURE)
        self.assertEqual(verify_webhook(BODY, both, STANDARD_SECRET, now=NOW).scheme, "standard")
        self.assertEqual(verify_webhook(BODY, both, OTHER_SECRET, now=NOW).scheme, "standard")
        # Unknown versions are ignored, not an error, as the Standard Webhooks spec asks.
        self.assertEqual(verify_webhook(BODY, standard_headers("v2,abc " + STANDARD_SIGNATURE), STANDARD_SECRET, now=NOW).scheme, "standard")

    def test_refuses_what_is_not_genuine(self) -> None:
        cases = [
            (BODY + b"\n", standard_headers(), STANDARD_SECRET, NOW, "signature_mismatch"),
            (BODY, standard_headers(OTHER_SIGNATURE), STANDARD_SECRET, NOW, "signature_mismatch"),
            (BODY, dict(standard_headers(), **{"webhook-id": "wh_other"}), STANDARD_SECRET, NOW, "signature_mismatch"),
            (BODY, standard_headers(), STANDARD_SECRET, 1700000000 + 3600, "timestamp_out_of_tolerance"),
            (BODY, standard_headers("v1,not base64!"), STANDARD_SECRET, NOW, "malformed_header"),
            (BODY, standard_headers("v2," + STANDARD_SIGNATURE[3:]), STANDARD_SECRET, NOW, "malformed_header"),
            (BODY, {"webhook-signature": STANDARD_SIGNATURE, "webhook-timestamp": TIMESTAMP}, STANDARD_SECRET, NOW, "missing_header"),
        ]
        for payload, headers, secret, now, reason in cases:
            with self.subTest(reason=reason, headers=headers):
                with self.assertRaises(WebhookVerificationError) as raised:
                    verify_webhook(payload, headers, secret, now=now)
                self.assertEqual(raised.exception.reason, reason)

    def test_a_secret_that_is_not_base64_is_a_programming_error(self) -> None:
        with self.assertRaises(TypeError):
            verify_webhook(BODY, standard_headers(), "whsec_not*base64", now=NOW)


if __name__ == "__main__":
    unittest.main()
