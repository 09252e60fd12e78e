"""A Server-Sent Events parser (the WHATWG rules a client follows), fed line by line."""
from __future__ import annotations

from typing import List, NamedTuple, Optional


class SseRecord(NamedTuple):
    event: str
    data: str
    #: The last id seen on the stream (what a reconnect sends as Last-Event-ID).
    id: Optional[str]
    #: A ``retry:`` field in this record, in milliseconds.
    retry_ms: Optional[int]


class SseParser:
    def __init__(self) -> None:
        self._event = ""
        self._data: List[str] = []
        self._id: Optional[str] = None
        self._retry_ms: Optional[int] = None
        self._seen = False

    def line(self, raw: str) -> Optional[SseRecord]:
        """One line without its end of line; returns a record at the blank line that ends one."""
        if raw == "":
            if not self._seen:
                return None
            record = SseRecord(self._event or "message", "\n".join(self._data), self._id, self._retry_ms)
            self._event, self._data, self._retry_ms, self._seen = "", [], None, False
            return record
        if raw.startswith(":"):
            return None
        field, _, value = raw.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        elif field == "id":
            if "\0" not in value:
                self._id = value
        elif field == "retry":
            if value.isdigit():
                self._retry_ms = int(value)
        else:
            return None
        self._seen = True
        return None
