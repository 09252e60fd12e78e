"""Batches against a local HTTP server that records each request and answers as the API would (no
standalone needed): request shapes and content types, the idempotency key and retries, the error
envelope with its ``lines``, pages, and the results and errors files read line by line."""
from __future__ import annotations

import http.server
import io
import json
import pathlib
import tempfile
import threading
import unittest
import urllib.parse
from typing import Any, Callable, Dict, List, Optional

from generation_service import Batch, BatchLineResult, GenerationApiError, GenerationClient


def batch(**changes: Any) -> Batch:
    counts = {"total": 2, "invalid": 0, "waiting": 2, "queued": 0, "processing": 0, "completed": 0, "failed": 0, "canceled": 0, "expired": 0}
    value: Dict[str, Any] = {
        "id": "batch_01", "object": "batch", "status": "in_progress", "completion_window": "24h",
        "created_at": "2026-11-28T20:00:00.000Z", "expires_at": "2026-11-29T20:00:00.000Z", "finished_at": None,
        "canceled_at": None, "request_counts": counts, "credits_charged": 0, "webhook_url": None, "metadata": {},
    }
    value.update(changes)
    return value  # type: ignore[return-value]


def line_result(line: int, **changes: Any) -> BatchLineResult:
    value: Dict[str, Any] = {"line": line, "custom_id": "shot-%d" % line, "outcome": "failed", "generation": None,
                             "error": {"code": "insufficient_credits", "message": "Not enough credits."}}
    value.update(changes)
    return value  # type: ignore[return-value]


def request_line(n: int) -> Dict[str, Any]:
    return {"custom_id": "shot-%d" % n, "body": {"model": "pixel-flux-1", "prompt": "product %d" % n, "type": "TEXT_TO_IMAGE"}}


def envelope(status: int, code: str, **extra: Any) -> Dict[str, Any]:
    return {"error": dict({"code": code, "status": status, "message": code + " here", "request_id": "req_1"}, **extra)}


class Seen:
    def __init__(self, method: str, path: str, headers: Any, body: bytes) -> None:
        url = urllib.parse.urlsplit(path)
        self.method, self.path, self.headers, self.body = method, url.path, headers, body
        self.query = dict(urllib.parse.parse_qsl(url.query))


Handler = Callable[[Seen, http.server.BaseHTTPRequestHandler], None]


def answer(handler: http.server.BaseHTTPRequestHandler, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
    data = json.dumps(body).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


class LocalApi:
    """The server: `handle` answers each request; `seen` records them."""

    def __init__(self) -> None:
        self.seen: List[Seen] = []
        self.handle: Handler = lambda seen, h: answer(h, 500, envelope(500, "internal_error"))
        api = self

        class RequestHandler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(self.command, self.path, self.headers, self.rfile.read(length) if length else b"")
                api.seen.append(seen)
                api.handle(seen, self)

            do_GET = do_POST = _any  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class Batches(unittest.TestCase):
    def setUp(self) -> None:
        self.api = LocalApi()
        self.addCleanup(self.api.close)
        self.client = GenerationClient(api_key="gsk_live_test", base_url=self.api.url, timeout_s=10)

    def test_creates_from_request_lines_as_jsonl_with_the_options_in_the_query_and_an_idempotency_key(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 201, batch(completion_window="2h"), {"Location": "/api/v1/batches/batch_01"})
        created = self.client.batches.create([request_line(1), request_line(2)], completion_window="2h", invalid_lines="skip",
                                             webhook_url="https://example.com/hook")
        self.assertEqual((created["id"], created["completion_window"]), ("batch_01", "2h"))
        (request,) = self.api.seen
        self.assertEqual((request.method, request.path), ("POST", "/api/v1/batches"))
        self.assertEqual(request.query, {"completion_window": "2h", "invalid_lines": "skip", "webhook_url": "https://example.com/hook"})
        self.assertEqual(request.headers["Content-Type"], "application/jsonl")
        self.assertEqual(request.headers["Authorization"], "Bearer gsk_live_test")
        self.assertRegex(request.headers["Idempotency-Key"], r"^[0-9a-f-]{36}$")
        self.assertTrue(request.body.endswith(b"\n"))
        self.assertEqual([json.loads(line) for line in request.body.splitlines()], [request_line(1), request_line(2)])

    def test_sends_jsonl_text_bytes_a_path_or_an_open_file_as_they_are(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 201, batch())
        text = json.dumps(request_line(1)) + "\r\n" + json.dumps(request_line(2))
        folder = tempfile.mkdtemp()
        self.addCleanup(lambda: [p.unlink() for p in pathlib.Path(folder).iterdir()] and None)
        path = pathlib.Path(folder, "batch.jsonl")
        path.write_text(text, encoding="utf-8")
        self.client.batches.create(text)
        self.client.batches.create(text.encode("utf-8"))
        self.client.batches.create(path)
        with open(path, "rb") as file:
            self.client.batches.create(file)
        self.client.batches.create(io.BytesIO(text.encode("utf-8")))
        self.assertEqual([(r.headers["Content-Type"], r.body, r.query) for r in self.api.seen], [("application/jsonl", text.encode("utf-8"), {})] * 5)

    def test_creates_from_an_uploaded_file_as_json_with_metadata_and_your_idempotency_key(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 201, batch(metadata={"run": "nightly"}))
        self.client.batches.create(input_file_id="upl_0123", completion_window="90m", metadata={"run": "nightly"}, idempotency_key="nightly-1")
        (request,) = self.api.seen
        self.assertEqual(request.headers["Content-Type"], "application/json")
        self.assertEqual(request.headers["Idempotency-Key"], "nightly-1")
        self.assertEqual(json.loads(request.body), {"input_file_id": "upl_0123", "completion_window": "90m", "metadata": {"run": "nightly"}})
        self.assertEqual(request.query, {})

    def test_refuses_a_source_and_an_upload_together_neither_or_metadata_beside_lines_sending_nothing(self) -> None:
        for arguments in ({}, {"source": "{}", "input_file_id": "upl_1"}, {"source": [request_line(1)], "metadata": {"a": "b"}}):
            with self.subTest(arguments=sorted(arguments)), self.assertRaises(ValueError):
                self.client.batches.create(**arguments)  # type: ignore[arg-type]
        self.assertEqual(self.api.seen, [])

    def test_retries_a_create_after_a_503_with_the_same_key_and_body(self) -> None:
        calls: List[int] = []

        def handle(seen: Seen, h: http.server.BaseHTTPRequestHandler) -> None:
            calls.append(1)
            if len(calls) == 1:
                answer(h, 503, envelope(503, "service_unavailable"), {"Retry-After": "0"})
            else:
                answer(h, 201, batch())

        self.api.handle = handle
        self.assertEqual(self.client.batches.create([request_line(1)])["id"], "batch_01")
        first, second = self.api.seen
        self.assertEqual((second.headers["Idempotency-Key"], second.body), (first.headers["Idempotency-Key"], first.body))

    def test_a_file_refused_for_its_lines_carries_each_bad_line_and_is_not_retried(self) -> None:
        lines = [{"line": 2, "custom_id": "shot-2", "message": "unknown model fox-9"}, {"line": 3, "custom_id": None, "message": "not JSON"}]
        self.api.handle = lambda seen, h: answer(h, 422, envelope(422, "validation_error", lines=lines))
        with self.assertRaises(GenerationApiError) as raised:
            self.client.batches.create("{}\n")
        error = raised.exception
        self.assertEqual((error.code, error.status, error.request_id, error.lines), ("validation_error", 422, "req_1", lines))
        self.assertEqual(len(self.api.seen), 1)
        self.api.handle = lambda seen, h: answer(h, 404, envelope(404, "not_found"))
        with self.assertRaises(GenerationApiError) as raised:
            self.client.batches.get("nope")
        self.assertEqual((raised.exception.code, raised.exception.lines), ("not_found", None))

    def test_reads_and_cancels_by_id_escaped_in_the_path(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 200, batch(id="a/b", status="canceling" if seen.method == "POST" else "in_progress"))
        self.assertEqual(self.client.batches.get("a/b")["status"], "in_progress")
        self.assertEqual(self.client.batches.cancel("a/b")["status"], "canceling")
        self.assertEqual([(r.method, r.path) for r in self.api.seen], [("GET", "/api/v1/batches/a%2Fb"), ("POST", "/api/v1/batches/a%2Fb/cancel")])

    def test_lists_a_page_and_every_page_from_a_cursor(self) -> None:
        pages = {"start": {"data": [batch(id="b5"), batch(id="b4")], "next_cursor": "c2"},
                 "c2": {"data": [batch(id="b3"), batch(id="b2")], "next_cursor": "c3"},
                 "c3": {"data": [batch(id="b1")], "next_cursor": None}}
        self.api.handle = lambda seen, h: answer(h, 200, pages[seen.query.get("cursor", "start")])
        self.assertEqual(self.client.batches.page(limit=2)["next_cursor"], "c2")
        self.assertEqual([b["id"] for b in self.client.batches.list(limit=2)], ["b5", "b4", "b3", "b2", "b1"])
        self.assertEqual([b["id"] for b in self.client.batches.list(cursor="c2")], ["b3", "b2", "b1"])
        self.assertEqual([r.query for r in self.api.seen[1:]],
                         [{"limit": "2"}, {"limit": "2", "cursor": "c2"}, {"limit": "2", "cursor": "c3"}, {"cursor": "c2"}, {"cursor": "c3"}])

    def test_reads_the_results_file_line_by_line_as_it_arrives(self) -> None:
        rest_allowed = threading.Event()
        completed = {"outcome": "completed", "error": None}

        def handle(seen: Seen, h: http.server.BaseHTTPRequestHandler) -> None:
            h.send_response(200)
            h.send_header("Content-Type", "application/jsonl")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()

            def chunk(data: bytes) -> None:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                h.wfile.flush()

            first = json.dumps(line_result(1, **completed)).encode()
            chunk(first[:10])
            chunk(first[10:] + b"\n")
            rest_allowed.wait(10)
            chunk(json.dumps(line_result(4, **completed)).encode() + b"\r\n\n" + json.dumps(line_result(9, **completed)).encode())
            chunk(b"")

        self.api.handle = handle
        got = []
        for result in self.client.batches.results("batch_01"):
            got.append(result["line"])
            self.assertEqual(result["outcome"], "completed")
            rest_allowed.set()  # the first line came before the server sent the rest
        self.assertEqual(got, [1, 4, 9])
        self.assertEqual((self.api.seen[0].path, self.api.seen[0].headers["Accept"]), ("/api/v1/batches/batch_01/results", "application/jsonl"))

    def test_resumes_a_dropped_download_giving_no_line_twice_for_the_errors_file_too(self) -> None:
        every = [line_result(2), line_result(3, outcome="expired"), line_result(5, outcome="invalid", custom_id=None)]
        body = b"".join(json.dumps(r).encode() + b"\n" for r in every)

        def handle(seen: Seen, h: http.server.BaseHTTPRequestHandler) -> None:
            h.send_response(200)
            h.send_header("Content-Type", "application/jsonl")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            if len(self.api.seen) == 1:
                h.wfile.write(body[: len(json.dumps(every[0])) + 15])  # a line and a part, then the connection drops
                h.wfile.flush()
                h.close_connection = True
                return
            h.wfile.write(body)

        self.api.handle = handle
        self.assertEqual(list(self.client.batches.errors("batch_01")), every)
        self.assertEqual([r.path for r in self.api.seen], ["/api/v1/batches/batch_01/errors"] * 2)

    def test_a_file_of_an_unknown_batch_is_the_envelope(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 404, envelope(404, "not_found"))
        with self.assertRaises(GenerationApiError) as raised:
            next(self.client.batches.results("missing"))
        self.assertEqual((raised.exception.code, raised.exception.status), ("not_found", 404))

    def test_waits_by_reading_the_batch_until_it_ended_and_times_out_with_code_timeout(self) -> None:
        self.api.handle = lambda seen, h: answer(h, 200, batch(status="completed" if len(self.api.seen) >= 3 else "in_progress"))
        self.assertEqual(self.client.batches.wait("batch_01", poll_interval_s=0.01)["status"], "completed")
        self.assertEqual(len(self.api.seen), 3)
        self.api.handle = lambda seen, h: answer(h, 200, batch(status="canceling"))
        with self.assertRaises(GenerationApiError) as raised:
            self.client.batches.wait("batch_01", poll_interval_s=0.02, timeout_s=0.1)
        self.assertEqual((raised.exception.code, raised.exception.status), ("timeout", 0))


if __name__ == "__main__":
    unittest.main()
