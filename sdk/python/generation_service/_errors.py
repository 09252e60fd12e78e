"""The errors the SDK raises."""
from __future__ import annotations

from typing import Any, Dict, List, Optional


class GenerationApiError(Exception):
    """An error answer of the API (its envelope), or a request that got no answer.

    ``code`` is the envelope's (``unauthorized``, ``insufficient_credits``, ``validation_error``,
    ``rate_limit_exceeded``, ...), or ``connection_error`` / ``timeout`` for a request that got no
    answer (then ``status`` is 0 and ``request_id`` is None).
    """

    def __init__(
        self,
        code: str,
        status: int,
        message: str,
        request_id: Optional[str] = None,
        retry_after_s: Optional[float] = None,
        lines: Optional[List[Dict[str, Any]]] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        #: The X-Request-Id of the answer: quote it to support.
        self.request_id = request_id
        #: Seconds the service asked to wait (Retry-After), on 429 and 503.
        self.retry_after_s = retry_after_s
        #: A batch file refused for its invalid lines (422 ``validation_error``): each bad line
        #: (``{"line", "custom_id", "message"}``, the first 1000); else None.
        self.lines = lines

    def __repr__(self) -> str:
        return "GenerationApiError(code=%r, status=%r, message=%r, request_id=%r)" % (
            self.code,
            self.status,
            self.message,
            self.request_id,
        )


class WebhookVerificationError(Exception):
    """A webhook request that must be rejected: answer it 400 and do nothing else.

    ``reason`` is ``missing_header``, ``malformed_header``, ``signature_mismatch``,
    ``timestamp_out_of_tolerance`` or ``invalid_payload``.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
