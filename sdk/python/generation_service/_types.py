"""The shapes the API answers (plain dicts, typed for editors and type checkers).

tests/test_against_standalone.py checks these field lists against the OpenAPI document the service serves.
The repository's test/ops/generation-record.spec.ts holds ``Generation`` and ``WebhookEvent`` to the record's
one declaration (GENERATION_RECORD_FIELDS in libs/contracts): names, order and annotations.
"""
from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, TypedDict


class GenerationOutput(TypedDict, total=False):
    url: str
    content_type: str
    bytes: Optional[int]
    width: int
    height: int
    duration_s: float


class Generation(TypedDict):
    id: str
    #: ``queued`` -> ``processing`` -> ``completed`` | ``failed`` (a cancellation is ``failed``).
    status: str
    #: ``TEXT_TO_IMAGE``, ``TEXT_TO_VIDEO``, ``TEXT_TO_AUDIO`` or ``TEXT_TO_3D``.
    type: str
    model: str
    prompt: str
    output_url: Optional[str]
    credits_charged: int
    error: Optional[str]
    created_at: str
    started_at: Optional[str]
    completed_at: Optional[str]
    canceled_at: Optional[str]
    queue_position: Optional[int]
    progress: Optional[float]
    output_expires_at: Optional[str]
    input: Dict[str, Any]
    metadata: Dict[str, str]
    outputs: List[GenerationOutput]


class GenerationPage(TypedDict):
    data: List[Generation]
    next_cursor: Optional[str]


class StreamEvent(NamedTuple):
    """One record of a generation's live stream."""

    #: The record's status when it was sent: ``queued``, ``processing``, ``completed`` or ``failed``.
    event: str
    #: The event's id (what a reconnect sends as Last-Event-ID).
    id: Optional[str]
    #: The whole record.
    data: Generation


class Model(TypedDict):
    id: str
    name: str
    type: str
    #: Credits charged on success.
    credits: int
    minimum_credits: int
    synchronous: bool
    min_plan: str
    provider: str
    description: str
    #: Whether this key's account may use it; else ``unavailable_reason`` says why.
    available: bool
    unavailable_reason: Optional[str]
    inputs: Dict[str, Any]
    price_multipliers: List[str]
    pricing: str


class PlanLimits(TypedDict):
    requests_per_minute: int
    parallel_tasks: int


class Credits(TypedDict):
    plan: str
    #: Credits that can be reserved now.
    available: int
    #: Credits reserved by generations not yet finished.
    held: int
    limits: PlanLimits


class LedgerEntry(TypedDict):
    id: str
    #: ``grant``, ``adjustment``, ``hold``, ``capture`` or ``release`` (the refund of a failure).
    kind: str
    amount: int
    held_change: int
    balance_after: int
    generation_id: Optional[str]
    model: Optional[str]
    created_at: str
    note: Optional[str]


class WebhookEvent(TypedDict):
    """The body of a generation's webhook event; ``event`` tells ``generation.completed`` from ``generation.failed``."""

    event: Literal["generation.completed", "generation.failed"]
    id: str
    status: str
    type: str
    model: str
    output_url: Optional[str]
    credits_charged: int
    error: Optional[str]
    created_at: str
    completed_at: str
    outputs: List[GenerationOutput]
    input: Dict[str, Any]
    metadata: Dict[str, str]


class AccountLowBalanceEvent(TypedDict):
    """``account.low_balance``: the account's available credits fell below its alert threshold (once per crossing)."""

    event: Literal["account.low_balance"]
    #: The event's id, the same in every delivery of it.
    id: str
    account_id: str
    #: The threshold crossed, in credits.
    threshold: int
    #: The available credits right after the crossing.
    available: int
    created_at: str


class Upload(TypedDict):
    """A file for a model's media input: give its ``id`` or ``url`` in ``input``."""

    id: str
    #: On the content host, readable without a key until it expires (what the provider reads).
    url: str
    #: After this it cannot be used (422), and it is deleted.
    expires_at: str
    #: Its media type, as its bytes show it.
    content_type: str
    bytes: int


class BatchRequestCounts(TypedDict):
    """Every line of a batch is in exactly one of these; ``total`` is their sum."""

    total: int
    #: Refused by the check at creation (``invalid_lines="skip"``): in the errors file, never charged.
    invalid: int
    #: Not admitted yet: no credits held.
    waiting: int
    #: Admitted (credits held), its generation queued.
    queued: int
    processing: int
    completed: int
    failed: int
    canceled: int
    expired: int


class Batch(TypedDict):
    """A batch: many generations from one JSONL file."""

    id: str
    object: Literal["batch"]
    #: ``in_progress``, ``canceling`` (canceled, admitted generations still running), ``completed``, ``canceled`` or ``expired``.
    status: str
    #: As given at creation (``24h``, ``90m``, ``3600s``).
    completion_window: str
    created_at: str
    #: The end of the completion window: lines not admitted by then are ``expired``.
    expires_at: str
    #: When the batch reached ``completed``, ``canceled`` or ``expired``.
    finished_at: Optional[str]
    canceled_at: Optional[str]
    request_counts: BatchRequestCounts
    #: Credits charged so far for the batch's completed lines.
    credits_charged: int
    #: Where ``batch.completed`` goes; None: nowhere.
    webhook_url: Optional[str]
    metadata: Dict[str, str]


class BatchLineError(TypedDict):
    #: ``validation_error``, ``insufficient_credits``, ``generation_failed``, ``canceled``, ``expired``, ...
    code: str
    message: str


class BatchLineResult(TypedDict):
    """One line of a batch's results file (``completed``) or errors file (every other outcome)."""

    #: The line's number in the file, from 1.
    line: int
    #: None only for an invalid line whose ``custom_id`` could not be read.
    custom_id: Optional[str]
    #: ``completed``, ``failed``, ``canceled``, ``expired`` or ``invalid``.
    outcome: str
    #: The line's generation, once it was admitted.
    generation: Optional[Generation]
    #: Why it did not complete; None when completed.
    error: Optional[BatchLineError]


class BatchPage(TypedDict):
    data: List[Batch]
    next_cursor: Optional[str]
