#!/usr/bin/env bash
# The Python SDK's tests (sdk/python/tests) with Debian's python3 against a running standalone: starts
# the built standalone (dist/, nothing is built here) on a free port with its own data folder, runs
# the tests (they make accounts and webhook settings with the built CLI), then stops it and removes
# the folder. Installs python3 when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PYTHON=/usr/bin/python3

if [ ! -x "$PYTHON" ]; then
  echo "installing python3 (the Python SDK's tests)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null
fi

work=$(mktemp -d)
# The embedded PostgreSQL runs as the user postgres when this runs as root: it must reach the folder.
chmod 755 "$work"
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server"
    for _ in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export GS_BASE_URL="http://127.0.0.1:$port"
export GS_DATA_DIR="$work/data"
export GS_CLI="[\"$(command -v node)\", \"$ROOT/dist/apps/cli/src/main.js\"]"

PORT=$port PUBLIC_BASE_URL=$GS_BASE_URL DATA_DIR=$GS_DATA_DIR LOG_LEVEL=warn \
  node dist/apps/standalone/src/main.js >"$work/standalone.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
  grep -q 'API key: gsk_live_' "$work/standalone.log" && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if ! grep -q 'API key: gsk_live_' "$work/standalone.log"; then
  echo "standalone did not start:" >&2
  tail -50 "$work/standalone.log" >&2
  exit 1
fi

cd sdk/python
"$PYTHON" --version
# Arguments name some tests (tests.test_quickstart); none runs them all.
if [ $# -gt 0 ]; then
  "$PYTHON" -m unittest -v "$@"
else
  "$PYTHON" -m unittest discover -s tests -t . -v
fi
