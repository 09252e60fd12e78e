"""What the tests against a running standalone share: its address, the operator CLI, a webhook receiver
and a proxy that loses answers. tools/ci/python-sdk.sh starts the standalone and sets GS_BASE_URL,
GS_DATA_DIR and GS_CLI (the CLI's command, JSON list)."""
from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Tuple


def environment() -> Tuple[str, str, List[str]]:
    missing = [name for name in ("GS_BASE_URL", "GS_DATA_DIR", "GS_CLI") if not os.environ.get(name)]
    if missing:
        raise RuntimeError("run these tests with tools/ci/python-sdk.sh (it starts a standalone): %s not set" % ", ".join(missing))
    return os.environ["GS_BASE_URL"], os.environ["GS_DATA_DIR"], json.loads(os.environ["GS_CLI"])


def cli(*args: str) -> Dict[str, Any]:
    """The operator CLI with --json, on the standalone's data folder; its parsed output."""
    _, data_dir, command = environment()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), "DATA_DIR": data_dir}
    run = subprocess.run(command + list(args) + ["--json"], env=env, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise RuntimeError("cli %s exited %d: %s" % (" ".join(args), run.returncode, run.stderr))
    return json.loads(run.stdout)


def new_account(credits: int = 1000) -> Dict[str, Any]:
    """A fresh account on the pro plan: {account_id, api_key: {id, key}}."""
    return cli("accounts", "create", "--name", "Python SDK %d" % time.time_ns(), "--plan", "pro", "--credits", str(credits))


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


class Receiver:
    """A webhook receiver on 127.0.0.1: keeps every request's raw body and headers, answers 204."""

    def __init__(self) -> None:
        self.requests: List[Tuple[bytes, Any]] = []
        self._lock = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    receiver.requests.append((body, self.headers))
                    receiver._lock.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d/hook" % self._server.server_address[1]

    def wait_for(self, predicate: Callable[[bytes, Any], bool], timeout_s: float = 30) -> Tuple[bytes, Any]:
        """The first request that satisfies `predicate`, waiting for it."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while True:
                for body, headers in self.requests:
                    if predicate(body, headers):
                        return body, headers
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no such webhook within %g s; received %d" % (timeout_s, len(self.requests)))
                self._lock.wait(left)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class LossyProxy:
    """Forwards to the standalone; `fail(n, status, retry_after)` makes the next n answers that status
    after forwarding (the request reached the service, its answer was lost); `drop_streams` cuts event
    streams after their first event. Records each request."""

    def __init__(self, target: str) -> None:
        self.seen: List[Tuple[float, str, str, Optional[str]]] = []
        #: The Last-Event-ID header of each request (None when absent).
        self.last_event_ids: List[Optional[str]] = []
        #: How many of the next event streams to cut after their first event.
        self.drop_streams = 0
        self._failures: List[Tuple[int, Optional[str]]] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                proxy.seen.append((time.monotonic(), self.command, self.path, self.headers.get("Idempotency-Key")))
                proxy.last_event_ids.append(self.headers.get("Last-Event-ID"))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
                request = urllib.request.Request(target + self.path, data=body, headers=headers, method=self.command)
                if self.path.endswith("/events"):
                    return self._stream(request)
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, answer, content_type = response.status, response.read(), response.headers.get("Content-Type")
                except urllib.error.HTTPError as error:
                    status, answer, content_type = error.code, error.read(), error.headers.get("Content-Type")
                if proxy._failures:
                    status, retry_after = proxy._failures.pop(0)
                    answer = json.dumps({"error": {"code": "service_unavailable", "status": status, "message": "lost", "request_id": "req_proxy"}}).encode()
                    self.send_response(status)
                    if retry_after is not None:
                        self.send_header("Retry-After", retry_after)
                else:
                    self.send_response(status)
                self.send_header("Content-Type", content_type or "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def _stream(self, request: urllib.request.Request) -> None:
                """An event stream, passed on line by line; with `drop_streams`, cut after its first event."""
                drop = proxy.drop_streams > 0
                proxy.drop_streams -= 1 if drop else 0
                with urllib.request.urlopen(request, timeout=60) as response:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.headers.get("Content-Type") or "text/event-stream")
                    self.end_headers()  # HTTP/1.0: the body ends when the connection closes
                    data = False
                    for line in response:
                        self.wfile.write(line)
                        self.wfile.flush()
                        data = data or line.startswith(b"data:")
                        if drop and data and line in (b"\n", b"\r\n"):
                            return  # the connection drops once an event went through

            do_GET = do_POST = _forward  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]

    def fail(self, count: int, status: int, retry_after: Optional[str] = None) -> None:
        self._failures = [(status, retry_after)] * count

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
