"""Batches: many generations from one JSONL file, run when the account's slots are free, one webhook at the end."""
from __future__ import annotations

import http.client
import json
import os
import time
import urllib.parse
import uuid
from typing import IO, Any, Dict, Iterable, Iterator, Mapping, Optional, Union, cast

from ._errors import GenerationApiError
from ._http import Transport
from ._types import Batch, BatchLineResult, BatchPage

JSONL = "application/jsonl"
FINAL = ("completed", "canceled", "expired")
#: Downloads of a file in a row that drop before giving a line, before giving up.
MAX_RESUMES = 5

#: Request lines (``{"custom_id": ..., "body": {...}}``), a JSONL file's text or bytes, a path to one, or an open binary file.
BatchSource = Union[Iterable[Mapping[str, Any]], str, bytes, "os.PathLike[str]", IO[bytes]]


def batch_path(batch_id: str) -> str:
    return "/api/v1/batches/" + urllib.parse.quote(batch_id, safe="")


def jsonl_of(source: BatchSource) -> bytes:
    """The JSONL file of a source sent in the request."""
    if isinstance(source, bytes):
        return source
    if isinstance(source, str):
        return source.encode("utf-8")
    if isinstance(source, os.PathLike):
        with open(source, "rb") as file:
            return file.read()
    read = getattr(source, "read", None)
    if callable(read):
        data = read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return b"".join(json.dumps(dict(line), separators=(",", ":")).encode("utf-8") + b"\n" for line in cast(Iterable[Mapping[str, Any]], source))


class Batches:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        source: Optional[BatchSource] = None,
        *,
        input_file_id: Optional[str] = None,
        completion_window: Optional[str] = None,
        invalid_lines: Optional[str] = None,
        webhook_url: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Batch:
        """Creates a batch (``POST /api/v1/batches``) from ``source`` (request lines, JSONL text or bytes, a
        path, an open file: sent as ``application/jsonl``) or from a JSONL file uploaded before
        (``input_file_id``). Every line is checked as ``generations.create`` checks its arguments.

        ``completion_window``: ``"24h"`` by default, ``"60s"`` to ``"168h"``. ``invalid_lines``: ``"reject"``
        (default: a bad line refuses the file, ``GenerationApiError`` 422 ``validation_error`` whose ``lines``
        names each) or ``"skip"`` (the good lines run; the bad ones are in the errors file). ``webhook_url``:
        where ``batch.completed`` goes, else the key's default. ``metadata``: only with ``input_file_id``
        (the API takes it in its JSON form only; upload the JSONL with ``uploads.create(data,
        content_type="application/jsonl")``). An Idempotency-Key goes with every create (yours, or one made
        here), so a retry after a lost answer returns the first batch.
        """
        if (source is None) == (input_file_id is None):
            raise ValueError("give either source (the lines or a JSONL file) or input_file_id (an uploaded JSONL file)")
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        if input_file_id is not None:
            body: Dict[str, Any] = {"input_file_id": input_file_id}
            for name, value in (("completion_window", completion_window), ("invalid_lines", invalid_lines), ("webhook_url", webhook_url)):
                if value is not None:
                    body[name] = value
            if metadata is not None:
                body["metadata"] = dict(metadata)
            return cast(Batch, self._transport.call("POST", "/api/v1/batches", idempotent=True, body=body, headers=headers))
        if metadata is not None:
            raise ValueError("metadata: the API takes it with an uploaded file only (create the batch with input_file_id)")
        query = {"completion_window": completion_window, "invalid_lines": invalid_lines, "webhook_url": webhook_url}
        raw = (jsonl_of(cast(BatchSource, source)), JSONL)
        return cast(Batch, self._transport.call("POST", "/api/v1/batches", idempotent=True, query=query, raw=raw, headers=headers))

    def get(self, batch_id: str) -> Batch:
        return cast(Batch, self._transport.call("GET", batch_path(batch_id), idempotent=True))

    def cancel(self, batch_id: str) -> Batch:
        """Cancels the lines not admitted yet and the admitted ones still queued (refunded); running ones finish."""
        # Safe to repeat: canceling a canceled batch answers it again.
        return cast(Batch, self._transport.call("POST", batch_path(batch_id) + "/cancel", idempotent=True))

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> BatchPage:
        """One page of the account's batches, newest first, with ``next_cursor``."""
        return cast(BatchPage, self._transport.call("GET", "/api/v1/batches", idempotent=True, query={"limit": limit, "cursor": cursor}))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Iterator[Batch]:
        """Every batch of the account (newest first), page after page from ``cursor``; ``limit`` is the page size."""
        while True:
            page = self.page(limit=limit, cursor=cursor)
            for batch in page["data"]:
                yield batch
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def results(self, batch_id: str) -> Iterator[BatchLineResult]:
        """The completed lines, in line order, read as they arrive (partial while the batch runs)."""
        return self._lines(batch_id, "results")

    def errors(self, batch_id: str) -> Iterator[BatchLineResult]:
        """The lines that did not complete (``failed``, ``canceled``, ``expired``, ``invalid``), in line order, read as they arrive."""
        return self._lines(batch_id, "errors")

    def wait(self, batch_id: str, *, timeout_s: Optional[float] = None, poll_interval_s: float = 5.0) -> Batch:
        """The batch once it is ``completed``, ``canceled`` or ``expired``, read every ``poll_interval_s``.

        Raises ``GenerationApiError`` with code ``timeout`` after ``timeout_s``; by default it waits as long
        as the batch runs (it ends by its ``expires_at``, once the lines it admitted finish).
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            batch = self.get(batch_id)
            if batch["status"] in FINAL:
                return batch
            if deadline is not None and time.monotonic() + poll_interval_s >= deadline:
                raise GenerationApiError("timeout", 0, "Batch %s did not finish within %g s." % (batch_id, timeout_s))
            time.sleep(poll_interval_s)

    def _lines(self, batch_id: str, file: str) -> Iterator[BatchLineResult]:
        """A JSONL file of the batch, line by line. A download that drops is taken again from the start and
        the lines already given are skipped (the file is in line order), so none is given twice."""
        last_line = 0
        resumes = 0
        while True:
            response = self._transport.open("GET", batch_path(batch_id) + "/" + file, idempotent=True, accept=JSONL)
            with response:
                try:
                    for raw in iter(response.readline, b""):
                        if not raw.strip():
                            continue
                        try:
                            result = cast(BatchLineResult, json.loads(raw.decode("utf-8")))
                        except ValueError:
                            if raw.endswith(b"\n"):
                                raise
                            # A last line cut short: the connection dropped before the body ended.
                            raise http.client.IncompleteRead(raw) from None
                        if result["line"] <= last_line:
                            continue
                        last_line, resumes = result["line"], 0
                        yield result
                    return
                except (OSError, http.client.HTTPException) as error:
                    resumes += 1
                    if resumes > MAX_RESUMES:
                        raise GenerationApiError("connection_error", 0, "The %s file of batch %s kept dropping before it ended." % (file, batch_id)) from error
