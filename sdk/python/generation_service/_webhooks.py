"""Verifies the signed webhook requests the service sends, in either scheme a key can use."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, cast

from ._errors import WebhookVerificationError
from ._types import AccountLowBalanceEvent, WebhookEvent

SECRET_PREFIX = "whsec_"
_SERVICE_SIGNATURE = re.compile(r"sha256=[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"[0-9]{1,15}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")

#: Request headers: a mapping (names in any case), an object with ``get_all`` (``http.client.HTTPMessage``,
#: ``email.message.Message``, Werkzeug's headers), or a list of (name, value) pairs.
Headers = Union[Mapping[str, str], Iterable[Tuple[str, str]], Any]


class VerifiedWebhook(NamedTuple):
    #: The verified body, parsed: ``event["event"]`` is ``generation.completed``, ``generation.failed`` or ``account.low_balance``.
    event: Union[WebhookEvent, AccountLowBalanceEvent]
    #: ``X-Service-Delivery-Id`` or ``webhook-id``: the same on every attempt; drop duplicates by it.
    delivery_id: str
    #: The signed timestamp, Unix seconds.
    timestamp: int
    #: ``service`` (X-Service-* headers, the default) or ``standard`` (Standard Webhooks).
    scheme: str
    #: A test event (sent on request from the dashboard or POST /api/v1/webhooks/test).
    test: bool


def verify_webhook(
    payload: Union[bytes, bytearray, memoryview, str],
    headers: Headers,
    secret: Union[str, Sequence[str]],
    tolerance_s: float = 300,
    now: Optional[float] = None,
) -> VerifiedWebhook:
    """Checks a webhook request from the service and returns its event.

    Both schemes a key can use are accepted:

    - ``service`` (the default): ``X-Service-Signature: sha256=<hex HMAC-SHA256 of "<X-Service-Timestamp>.<body>">``,
      keyed with the whole ``whsec_...`` string;
    - ``standard`` (Standard Webhooks): ``webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">``,
      keyed with the base64 after ``whsec_``, decoded; several space-separated signatures during a rotation.

    ``payload`` is the raw body exactly as received (never a parsed and re-serialised object).
    ``secret`` may be a list: any match is accepted, and every one is always compared (constant
    time). Then the timestamp must be within ``tolerance_s`` of ``now`` (Unix seconds, default the
    clock). Raises ``WebhookVerificationError``: answer 400.
    """
    body = _raw_bytes(payload)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or any(not isinstance(s, str) or not s for s in secrets):
        raise TypeError("secret: a non-empty string, or a list of them")
    if not tolerance_s >= 0:
        raise ValueError("tolerance_s must be a non-negative number")

    standard = _header(headers, "webhook-signature") is not None
    matched = False
    if standard:
        delivery_id = _required(headers, "webhook-id")
        timestamp_text = _timestamp(headers, "webhook-timestamp")
        received = [
            signature
            for signature in (_b64(part[3:]) for part in _required(headers, "webhook-signature").split(" ") if part.startswith("v1,"))
            if signature is not None and len(signature) == 32
        ]
        if not received:
            raise WebhookVerificationError("malformed_header", 'webhook-signature: expected "v1," and a base64 HMAC-SHA256')
        signed = ("%s.%s." % (delivery_id, timestamp_text)).encode("utf-8") + body
        for one in secrets:
            key = _b64(one[len(SECRET_PREFIX):] if one.startswith(SECRET_PREFIX) else one)
            if key is None:
                raise TypeError("secret: a Standard Webhooks secret is whsec_ followed by base64")
            expected = hmac.new(key, signed, hashlib.sha256).digest()
            for candidate in received:
                matched = hmac.compare_digest(expected, candidate) or matched
    else:
        timestamp_text = _timestamp(headers, "x-service-timestamp")
        signature = _required(headers, "x-service-signature")
        if not _SERVICE_SIGNATURE.fullmatch(signature):
            raise WebhookVerificationError("malformed_header", 'X-Service-Signature: expected "sha256=" and 64 lowercase hex digits')
        delivery_id = _header(headers, "x-service-delivery-id") or ""
        signed = timestamp_text.encode("ascii") + b"." + body
        for one in secrets:
            expected_hex = "sha256=" + hmac.new(one.encode("utf-8"), signed, hashlib.sha256).hexdigest()
            matched = hmac.compare_digest(expected_hex, signature) or matched
    if not matched:
        raise WebhookVerificationError(
            "signature_mismatch",
            "No secret produces this signature: wrong secret, or the body or timestamp was changed (verify the raw body).",
        )

    # After the signature, so this error means "genuine but stale or early": a replay, or a wrong clock.
    timestamp = int(timestamp_text)
    now_s = int(time.time() if now is None else now)
    if abs(now_s - timestamp) > tolerance_s:
        raise WebhookVerificationError(
            "timestamp_out_of_tolerance",
            "The signed timestamp is %d s from now; at most %g s are accepted." % (now_s - timestamp, tolerance_s),
        )
    try:
        event = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("invalid_payload", "The signed body is not JSON.") from None
    return VerifiedWebhook(
        event=cast(Union[WebhookEvent, AccountLowBalanceEvent], event),
        delivery_id=delivery_id,
        timestamp=timestamp,
        scheme="standard" if standard else "service",
        test=_header(headers, "x-service-test") == "true",
    )


def _raw_bytes(payload: object) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise TypeError(
        "payload: the raw request body (bytes or str) exactly as received, not a parsed object: "
        "re-serialising JSON changes its bytes and the signature no longer matches"
    )


def _header(headers: Headers, name: str) -> Optional[str]:
    values: List[str] = []
    get_all = getattr(headers, "get_all", None)
    if callable(get_all):
        values = [str(v) for v in (get_all(name) or [])]
    else:
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        for key, value in pairs:
            if key.lower() != name:
                continue
            values.extend([value] if isinstance(value, str) else list(value))
    if len(values) > 1:
        raise WebhookVerificationError("malformed_header", "%s: the header appears more than once" % name)
    return values[0] if values else None


def _required(headers: Headers, name: str) -> str:
    value = _header(headers, name)
    if not value:
        raise WebhookVerificationError("missing_header", "%s: missing" % name)
    return value


def _timestamp(headers: Headers, name: str) -> str:
    value = _required(headers, name)
    if not _TIMESTAMP.fullmatch(value):
        raise WebhookVerificationError("malformed_header", "%s: expected Unix time in seconds" % name)
    return value


def _b64(text: str) -> Optional[bytes]:
    """Strict base64 (standard alphabet, optional padding) to bytes; None when it is not base64."""
    if not _BASE64.fullmatch(text):
        return None
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
