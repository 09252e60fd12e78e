"""One API call over urllib: JSON in and out, the error envelope, retries with backoff."""
from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from ._errors import GenerationApiError
from ._version import __version__

#: The longest the SDK waits before a retry, whatever Retry-After says.
MAX_RETRY_DELAY_S = 60.0
USER_AGENT = f"generation-service-python/{__version__}"

Query = Mapping[str, Union[str, int, None]]


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After as seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def retry_delay_s(attempt: int, retry_after_s: Optional[float]) -> float:
    """Retry-After when the service said it (capped at a minute), else 0.5 s doubling per attempt with jitter, up to 8 s."""
    if retry_after_s is not None:
        return min(retry_after_s, MAX_RETRY_DELAY_S)
    base = min(0.5 * 2 ** attempt, 8.0)
    return base / 2 + random.random() * (base / 2)


def _retryable(error: GenerationApiError) -> bool:
    if error.status == 0:
        return True  # no answer: connection refused or reset, timeout
    return error.status == 429 or error.status >= 500


def error_from_response(status: int, headers: Any, body: bytes) -> GenerationApiError:
    """The error of a non-2xx answer, from its envelope (or its status, for a body that is not one)."""
    envelope: Dict[str, Any] = {}
    try:
        parsed = json.loads(body.decode("utf-8")) if body else None
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            envelope = parsed["error"]
    except (UnicodeDecodeError, ValueError):
        pass
    return GenerationApiError(
        code=str(envelope.get("code") or ("internal_error" if status >= 500 else "http_error")),
        status=status,
        message=str(envelope.get("message") or "HTTP %d" % status),
        request_id=envelope.get("request_id") or headers.get("x-request-id"),
        retry_after_s=parse_retry_after(headers.get("retry-after")),
        lines=envelope["lines"] if isinstance(envelope.get("lines"), list) else None,
    )


class Transport:
    """Sends API calls; retries (only those safe to repeat) after a 429, a 5xx or no answer."""

    def __init__(self, api_key: str, base_url: str, timeout_s: float, max_retries: int) -> None:
        if not isinstance(api_key, str) or not api_key:
            raise ValueError("api_key is required")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url: an http(s) URL, e.g. https://api.example.com")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.max_retries = max_retries

    def url(self, path: str, query: Optional[Query] = None) -> str:
        url = self.base_url + path
        params = {k: str(v) for k, v in (query or {}).items() if v is not None}
        return url + ("?" + urllib.parse.urlencode(params) if params else "")

    def call(
        self,
        method: str,
        path: str,
        *,
        idempotent: bool,
        query: Optional[Query] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        raw: Optional[Tuple[bytes, str]] = None,
    ) -> Any:
        """The parsed JSON answer of a successful call, after the retries; `raw` (bytes, media type) is sent as it is."""
        response = self.open(method, path, idempotent=idempotent, query=query, body=body, headers=headers, raw=raw)
        with response:
            try:
                text = response.read()
            except (OSError, http.client.HTTPException) as error:
                raise _no_answer(error, self.timeout_s) from error
        return json.loads(text.decode("utf-8")) if text else None

    def open(
        self,
        method: str,
        path: str,
        *,
        idempotent: bool,
        query: Optional[Query] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        accept: str = "application/json",
        timeout_s: Optional[float] = None,
        raw: Optional[Tuple[bytes, str]] = None,
    ) -> http.client.HTTPResponse:
        """The open response of a successful call (its body unread), after the retries."""
        sent = {"Authorization": "Bearer " + self.api_key, "Accept": accept, "User-Agent": USER_AGENT}
        sent.update(headers or {})
        data = None
        if raw is not None:
            data, sent["Content-Type"] = raw
        elif body is not None:
            data = json.dumps(body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        url = self.url(path, query)
        attempt = 0
        while True:
            try:
                return self._attempt(urllib.request.Request(url, data=data, headers=sent, method=method), timeout_s)
            except GenerationApiError as failure:
                # A request that is not safe to repeat is never sent twice (a create always has its key).
                if not idempotent or attempt >= self.max_retries or not _retryable(failure):
                    raise
                time.sleep(retry_delay_s(attempt, failure.retry_after_s))
                attempt += 1

    def _attempt(self, request: urllib.request.Request, timeout_s: Optional[float]) -> http.client.HTTPResponse:
        timeout = self.timeout_s if timeout_s is None else timeout_s
        try:
            return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (the base URL is http(s), checked above)
        except urllib.error.HTTPError as error:
            with error:
                try:
                    body = error.read()
                except (OSError, http.client.HTTPException):
                    body = b""
            raise error_from_response(error.code, error.headers, body) from None
        except urllib.error.URLError as error:
            raise _no_answer(error.reason if isinstance(error.reason, BaseException) else error, timeout) from error
        except (OSError, http.client.HTTPException) as error:
            raise _no_answer(error, timeout) from error


def _no_answer(error: BaseException, timeout_s: float) -> GenerationApiError:
    if isinstance(error, socket.timeout):
        return GenerationApiError("timeout", 0, "No answer within %g s." % timeout_s)
    return GenerationApiError("connection_error", 0, "The API could not be reached: %s" % (error,))
