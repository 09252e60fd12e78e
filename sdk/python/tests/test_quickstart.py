"""docs/guide/quickstart.md's examples marked `<!-- test: ... -->`, run as written against the running
standalone: the curl blocks with bash, the Python blocks with this SDK, the shell verification blocks
on real deliveries of both schemes (and of a rotation with overlap)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import subprocess
import tempfile
import unittest
from typing import Any, Dict, List, Tuple
from unittest import mock

from .support import Receiver, cli, environment, new_account

GUIDE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "guide" / "quickstart.md"
BLOCK = re.compile(r"<!-- test: ([a-z-]+) -->\n```[a-z]*\n(.*?)```", re.S)


def blocks(kind: str) -> List[str]:
    found = [code for name, code in BLOCK.findall(GUIDE.read_text(encoding="utf-8")) if name == kind]
    if not found:
        raise AssertionError("no %s block in %s" % (kind, GUIDE))
    return found


def bash(script: str, env: Dict[str, str], cwd: str) -> Tuple[int, str, str]:
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=dict(env, PATH=os.environ.get("PATH", "")), cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout, run.stderr


class Quickstart(unittest.TestCase):
    def setUp(self) -> None:
        self.base_url = environment()[0]
        self.folder = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ["rm", "-rf", self.folder])

    def test_the_curl_examples(self) -> None:
        account = new_account()
        found = blocks("curl")
        script = "\n".join('echo "@@ %d"\n%s' % (i, code) for i, code in enumerate(found))
        code, out, err = bash(script, {"API_KEY": account["api_key"]["key"], "BASE_URL": self.base_url}, self.folder)
        self.assertEqual(code, 0, err)
        outputs = re.split(r"^@@ \d+\n", out, flags=re.M)[1:]
        self.assertEqual(len(outputs), len(found))
        image = json.loads(outputs[0])
        self.assertEqual((image["status"], image["credits_charged"]), ("completed", 4))
        self.assertIn("event: completed", outputs[1])
        self.assertGreater(os.path.getsize(os.path.join(self.folder, "bell.wav")), 1000)
        canceled = json.loads(outputs[2][: outputs[2].index("}") + 1])
        self.assertEqual((canceled["status"], canceled["credits_charged"]), ("failed", 0))
        self.assertIsNotNone(canceled["canceled_at"])
        self.assertEqual(outputs[3].strip(), '"validation_error"')

    def test_the_python_examples_and_the_webhook_verification_in_both_schemes(self) -> None:
        receiver = Receiver()
        self.addCleanup(receiver.close)
        account = new_account()
        ids = ["--account", account["account_id"], "--key", account["api_key"]["id"]]
        secret = cli("keys", "set-webhook-url", *ids, "--url", receiver.url)["webhook_secret"]
        env = {"API_KEY": account["api_key"]["key"], "BASE_URL": self.base_url, "WEBHOOK_SECRET": secret}

        namespace: Dict[str, Any] = {}
        printed = io.StringIO()
        with mock.patch.dict(os.environ, env), contextlib.redirect_stdout(printed):
            for code in blocks("python"):
                exec(compile(code, str(GUIDE), "exec"), namespace)  # noqa: S102 (the guide's own examples)
        lines = printed.getvalue().splitlines()
        self.assertRegex(lines[0], r"^completed http://.*/cdn/")
        self.assertRegex(lines[1], r"^http://.*/cdn/.*\.wav$")
        self.assertEqual(lines[-1].split(" ")[:2], ["validation_error", "422"])

        handle = namespace["handle_generation_webhook"]
        image_id = namespace["image"]["id"]
        body, headers = receiver.wait_for(lambda b, _: json.loads(b)["id"] == image_id)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual([handle(body, headers), handle(body, headers), handle(body + b" ", headers)], [204, 204, 400])
        self.assert_shell_verifies("verify-service", body, {"TIMESTAMP": headers["X-Service-Timestamp"], "SIGNATURE": headers["X-Service-Signature"]}, [secret])

        cli("keys", "set-webhook-scheme", *ids, "--scheme", "standard")
        rotated = cli("keys", "secret", *ids, "--overlap", "1h")["webhook_secret"]
        generation = namespace["client"].generations.create(model="pixel-flux-1", prompt="a standard event", type="TEXT_TO_IMAGE")
        body, headers = receiver.wait_for(lambda b, _: json.loads(b)["id"] == generation["id"])
        standard = {"WEBHOOK_ID": headers["webhook-id"], "TIMESTAMP": headers["webhook-timestamp"], "SIGNATURES": headers["webhook-signature"]}
        self.assert_shell_verifies("verify-standard", body, standard, [secret, rotated])
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(handle(body, headers), 204)

    def assert_shell_verifies(self, kind: str, body: bytes, headers: Dict[str, str], secrets: List[str]) -> None:
        (script,) = blocks(kind)
        for secret, payload, expected in [(s, body, "valid") for s in secrets] + [(secrets[0], body + b"\n", "INVALID")]:
            with self.subTest(kind=kind, expected=expected):
                pathlib.Path(self.folder, "body.json").write_bytes(payload)
                code, out, err = bash(script, dict(headers, WEBHOOK_SECRET=secret), self.folder)
                self.assertEqual((code, out.strip()), (0, expected), err)


if __name__ == "__main__":
    unittest.main()
