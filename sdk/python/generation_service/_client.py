"""The client: ``generations``, ``batches``, ``models``, ``credits``, ``uploads`` over one transport."""
from __future__ import annotations

import urllib.parse
from typing import Iterator, List, Optional, cast

from ._batches import Batches
from ._generations import Generations
from ._http import Transport
from ._types import Credits, LedgerEntry, Model, Upload

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 2


class Models:
    """The model catalogue."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> List[Model]:
        """Every model, each ``available`` for this key's account or with its ``unavailable_reason``."""
        return cast(List[Model], self._transport.call("GET", "/api/v1/models", idempotent=True)["data"])

    def get(self, model_id: str) -> Model:
        return cast(Model, self._transport.call("GET", "/api/v1/models/" + urllib.parse.quote(model_id, safe=""), idempotent=True))


class CreditsApi:
    """The account's credits and their ledger."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def get(self) -> Credits:
        """Plan, limits, available and held credits."""
        return cast(Credits, self._transport.call("GET", "/api/v1/credits", idempotent=True))

    def ledger(self, *, limit: Optional[int] = None) -> Iterator[LedgerEntry]:
        """Every credit change, newest first, page after page (``limit`` is the page size)."""
        cursor: Optional[str] = None
        while True:
            page = self._transport.call("GET", "/api/v1/credits/ledger", idempotent=True, query={"limit": limit, "cursor": cursor})
            for entry in page["data"]:
                yield cast(LedgerEntry, entry)
            cursor = page.get("next_cursor")
            if not cursor:
                return


class Uploads:
    """Input media: files for a model's media inputs (``format: "uri"``)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(self, data: bytes, *, content_type: str) -> Upload:
        """Stores a file for the account (``POST /api/v1/uploads``), usable by its ``id`` or ``url`` in a
        generation's ``input`` until ``expires_at``. ``content_type``: image/png, image/jpeg, image/webp,
        video/mp4, video/webm, audio/wav, audio/mpeg or model/gltf-binary; application/jsonl for a
        batch's file (``batches.create(input_file_id=...)``). Not retried: a repeat would store the
        file twice."""
        return cast(Upload, self._transport.call("POST", "/api/v1/uploads", idempotent=False, raw=(bytes(data), content_type)))


class GenerationClient:
    """The Generation Service API. Every API error is a ``GenerationApiError``.

    ``timeout_s`` bounds the wait for a connection and for each read of an answer (a synchronous
    image generation answers within about 30 s). ``max_retries`` retries after a 429, a 5xx or a
    request that got no answer, waiting what Retry-After says (at most a minute), else 0.5 s, 1 s,
    2 s ... with jitter; only calls that are safe to repeat are retried: reads, cancel, and the creates
    of generations and batches, which always carry an Idempotency-Key.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        transport = Transport(api_key, base_url, timeout_s, max_retries)
        self.generations = Generations(transport)
        self.batches = Batches(transport)
        self.models = Models(transport)
        self.credits = CreditsApi(transport)
        self.uploads = Uploads(transport)
