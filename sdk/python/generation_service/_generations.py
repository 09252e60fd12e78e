"""Generations: submit, read, list, cancel, follow live, wait."""
from __future__ import annotations

import http.client
import json
import time
import urllib.parse
import uuid
from typing import Any, Dict, Iterator, Mapping, Optional, Union, cast

from ._errors import GenerationApiError
from ._http import Transport
from ._sse import SseParser
from ._types import Generation, GenerationPage, StreamEvent

FINAL = ("completed", "failed")
#: Reconnects in a row that bring no record before the stream gives up.
MAX_RECONNECTS = 5


def generation_path(generation_id: str) -> str:
    return "/api/v1/generations/" + urllib.parse.quote(generation_id, safe="")


class Generations:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        *,
        model: str,
        prompt: str,
        type: str,
        input: Optional[Mapping[str, Any]] = None,
        metadata: Optional[Mapping[str, str]] = None,
        webhook_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        cancel_after: Union[str, int, None] = None,
    ) -> Generation:
        """Submits a generation (``POST /api/v1/generate``).

        Synchronous (image) models usually answer with the finished record; others with it queued or
        processing: then ``wait`` for it. An Idempotency-Key goes with every create (yours, or one made
        here), so a retry after a lost answer returns the first generation and charges once.
        ``cancel_after`` (``"30s"``, ``"5m"``, ``"1h30m"`` or seconds) cancels it if not finished by then.
        """
        body: Dict[str, Any] = {"model": model, "prompt": prompt, "type": type}
        if input is not None:
            body["input"] = dict(input)
        if metadata is not None:
            body["metadata"] = dict(metadata)
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        if cancel_after is not None:
            headers["Cancel-After"] = str(cancel_after)
        return cast(Generation, self._transport.call("POST", "/api/v1/generate", idempotent=True, body=body, headers=headers))

    def get(self, generation_id: str) -> Generation:
        return cast(Generation, self._transport.call("GET", generation_path(generation_id), idempotent=True))

    def cancel(self, generation_id: str) -> Generation:
        """Cancels a queued or running generation (it becomes ``failed``, refunded); 409 ``conflict`` once finished."""
        # Safe to repeat: canceling a canceled generation answers it again.
        return cast(Generation, self._transport.call("POST", generation_path(generation_id) + "/cancel", idempotent=True))

    def page(
        self,
        *,
        status: Optional[str] = None,
        type: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> GenerationPage:
        """One page of the caller's generations, newest first, with ``next_cursor``."""
        query = {"status": status, "type": type, "limit": limit, "cursor": cursor}
        return cast(GenerationPage, self._transport.call("GET", "/api/v1/generations", idempotent=True, query=query))

    def list(self, *, status: Optional[str] = None, type: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Generation]:
        """Every generation of the caller (newest first), page after page; ``limit`` is the page size."""
        cursor: Optional[str] = None
        while True:
            page = self.page(status=status, type=type, limit=limit, cursor=cursor)
            for generation in page["data"]:
                yield generation
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def stream(self, generation_id: str, *, timeout_s: Optional[float] = None) -> Iterator[StreamEvent]:
        """The generation's records as they change (Server-Sent Events), ending after the final one.

        A dropped connection is resumed with Last-Event-ID after the server's ``retry`` delay: the
        server sends the current record unless it is the one this stream already gave. Raises
        ``GenerationApiError`` with code ``timeout`` when ``timeout_s`` passes first.
        """
        return self._follow(generation_id, timeout_s, retries=True)

    def _follow(self, generation_id: str, timeout_s: Optional[float], retries: bool) -> Iterator[StreamEvent]:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        last_event_id: Optional[str] = None
        last_data: Optional[str] = None
        retry_s = 1.0
        reconnects = 0
        while True:
            headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
            response = self._transport.open(
                "GET",
                generation_path(generation_id) + "/events",
                # wait() falls back to polling at once rather than retrying a refused stream.
                idempotent=retries,
                headers=headers,
                accept="text/event-stream",
                timeout_s=_read_timeout(self._transport.timeout_s, deadline, generation_id),
            )
            with response:
                if response.status == 204:
                    return  # the final record, which this stream already gave
                parser = SseParser()
                while True:
                    try:
                        raw = response.readline()
                    except (OSError, http.client.HTTPException):
                        _read_timeout(self._transport.timeout_s, deadline, generation_id)
                        break  # the connection dropped or went quiet: reconnect below
                    if not raw:
                        break
                    record = parser.line(raw.decode("utf-8").rstrip("\r\n"))
                    if record is None:
                        continue
                    if record.retry_ms is not None:
                        retry_s = record.retry_ms / 1000
                    last_event_id = record.id or last_event_id
                    if record.data == "":
                        continue
                    reconnects = 0
                    data = cast(Generation, json.loads(record.data))
                    if record.data != last_data:
                        last_data = record.data
                        yield StreamEvent(event=record.event, id=record.id, data=data)
                    if data["status"] in FINAL:
                        return
            reconnects += 1
            if reconnects > MAX_RECONNECTS:
                raise GenerationApiError("connection_error", 0, "The live stream kept closing before the generation finished.")
            _sleep_until(retry_s, deadline, generation_id)

    def wait(self, generation_id: str, *, timeout_s: float = 600.0, poll_interval_s: float = 1.0) -> Generation:
        """The generation once it is ``completed`` or ``failed``.

        Follows its live stream, and reads it every ``poll_interval_s`` when the stream is unavailable
        (a proxy that buffers, the account's limit of open streams). Raises ``GenerationApiError`` with
        code ``timeout`` after ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        try:
            for event in self._follow(generation_id, timeout_s, retries=False):
                if event.data["status"] in FINAL:
                    return event.data
        except GenerationApiError as error:
            # The generation itself is the problem (unknown id, no permission): polling would not help.
            if error.code == "timeout" or error.status in (401, 403, 404):
                raise
        while True:
            generation = self.get(generation_id)
            if generation["status"] in FINAL:
                return generation
            _sleep_until(poll_interval_s, deadline, generation_id)


def _timed_out(generation_id: str) -> GenerationApiError:
    return GenerationApiError("timeout", 0, "Generation %s did not finish in time." % generation_id)


def _read_timeout(timeout_s: float, deadline: Optional[float], generation_id: str) -> float:
    """How long one read may block: the client's timeout, or less when the deadline is nearer."""
    if deadline is None:
        return timeout_s
    left = deadline - time.monotonic()
    if left <= 0:
        raise _timed_out(generation_id)
    return min(timeout_s, left)


def _sleep_until(delay_s: float, deadline: Optional[float], generation_id: str) -> None:
    if deadline is not None and time.monotonic() + delay_s >= deadline:
        raise _timed_out(generation_id)
    time.sleep(delay_s)
