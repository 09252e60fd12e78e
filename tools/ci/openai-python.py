#!/usr/bin/env python3
"""The OpenAI-compatible images API from Python (docs/guide/openai-compatible.md).

Usage: openai-python.py BASE_URL API_KEY  (BASE_URL ends in /openai/v1)

With the `openai` package when it is installed, else raw HTTP (urllib): one image as a URL, one as
b64_json, the models list and an unknown model's error. Prints a JSON report; run by
test/e2e/openai-images.e2e-spec.ts.
"""
import base64
import json
import sys
import urllib.error
import urllib.request

base_url, api_key = sys.argv[1], sys.argv[2]


def with_openai():
    import openai

    client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0)
    url = client.images.generate(model="pixel-flux-1", prompt="a red fox").data[0].url
    b64 = client.images.generate(model="pixel-flux-1", prompt="a red fox", response_format="b64_json").data[0].b64_json
    models = [m.id for m in client.models.list().data]
    try:
        client.images.generate(model="no-such-model", prompt="x")
        unknown = {"status": 200, "code": None}
    except openai.APIStatusError as error:
        unknown = {"status": error.status_code, "code": error.code}
    return "openai", url, b64, models, unknown


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + api_key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def with_urllib():
    _, first = call("POST", "/images/generations", {"model": "pixel-flux-1", "prompt": "a red fox"})
    _, second = call("POST", "/images/generations", {"model": "pixel-flux-1", "prompt": "a red fox", "response_format": "b64_json"})
    _, models = call("GET", "/models")
    status, error = call("POST", "/images/generations", {"model": "no-such-model", "prompt": "x"})
    unknown = {"status": status, "code": error["error"]["code"]}
    return "urllib", first["data"][0]["url"], second["data"][0]["b64_json"], [m["id"] for m in models["data"]], unknown


try:
    import openai  # noqa: F401

    via, url, b64, models, unknown = with_openai()
except ImportError:
    via, url, b64, models, unknown = with_urllib()

print(json.dumps({
    "via": via,
    "url": url,
    "b64_png": base64.b64decode(b64)[1:4] == b"PNG",
    "models": models,
    "unknown_model": unknown,
}))
