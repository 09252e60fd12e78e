#!/usr/bin/env bash
# Builds each service's image and the CLI's, each tagged with its own version (apps/<app>/package.json):
#   bash tools/ops/build-images.sh [registry prefix, e.g. registry.example.com/]
# then push the tags you release and pin their digests in the overlay (docs/operations/upgrade.md).
# BuildKit builds the shared build stage once for all five images.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:-}
for app in gateway billing generation webhooks cli; do
  version=$(node -p "require('./apps/$app/package.json').version")
  echo "==> ${prefix}generation-service-$app:$version"
  docker build -f "docker/$app.Dockerfile" -t "${prefix}generation-service-$app:$version" .
done
