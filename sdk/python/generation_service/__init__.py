"""The Generation Service API for Python (3.9+, standard library only).

``GenerationClient`` calls the API; ``verify_webhook`` checks the signed events the service sends.
"""
from ._batches import Batches
from ._client import CreditsApi, GenerationClient, Models, Uploads
from ._errors import GenerationApiError, WebhookVerificationError
from ._generations import Generations
from ._http import parse_retry_after, retry_delay_s
from ._types import (
    AccountLowBalanceEvent,
    Batch,
    BatchLineError,
    BatchLineResult,
    BatchPage,
    BatchRequestCounts,
    Credits,
    Generation,
    GenerationOutput,
    GenerationPage,
    LedgerEntry,
    Model,
    PlanLimits,
    StreamEvent,
    Upload,
    WebhookEvent,
)
from ._webhooks import VerifiedWebhook, verify_webhook

from ._version import __version__

__all__ = [
    "AccountLowBalanceEvent",
    "Batch",
    "BatchLineError",
    "BatchLineResult",
    "BatchPage",
    "BatchRequestCounts",
    "Batches",
    "Credits",
    "CreditsApi",
    "Generation",
    "GenerationApiError",
    "GenerationClient",
    "GenerationOutput",
    "GenerationPage",
    "Generations",
    "LedgerEntry",
    "Model",
    "Models",
    "PlanLimits",
    "StreamEvent",
    "Upload",
    "Uploads",
    "VerifiedWebhook",
    "WebhookEvent",
    "WebhookVerificationError",
    "parse_retry_after",
    "retry_delay_s",
    "verify_webhook",
]
