# syntax=docker/dockerfile:1
# The gateway service's image: the public HTTP API and the dashboard. Only its compiled code (and the built dashboard it serves) and the
# libs it uses (tools/ops/check-docker.mjs fails when this list and the libs its compiled code
# requires differ), with the workspace's production dependencies; tagged with the service's own version:
#   docker build -f docker/gateway.Dockerfile -t generation-service-gateway:$(node -p "require('./apps/gateway/package.json').version") .
#   (or every image at once: bash tools/ops/build-images.sh)
# Its commands: dist/apps/gateway/src/main.js (the default; PORT 3000), dist/apps/gateway/src/migrate.js (its
# own schema's migrations, the Kubernetes init container). docs/operations/upgrade.md, "Versions".
# Node 22, the LTS line. A production build pins the base by digest:
#   --build-arg NODE_IMAGE=node:22.20-bookworm-slim@sha256:<digest> (docs/operations/kubernetes.md).
ARG NODE_IMAGE=node:22.20-bookworm-slim

# 1. Compile TypeScript with the full dependency tree (no install scripts: none is needed to build).
#    The same stage in every service's Dockerfile, so BuildKit builds it once for all of them.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.base.json tsconfig.build.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools/clean-dist.js tools/copy-sql.js ./tools/
RUN npm run build

# 2. Production dependencies only: no dev tools, and no optional platform packages (the embedded
#    PostgreSQL binaries are for standalone mode on a laptop, never for a cluster). One package.json
#    for the workspace, so every image has the same node_modules.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# 3. Runtime: the gateway service's code and production dependencies, owned by root, run as the
#    unprivileged `node` user (uid 1000), so the process cannot modify its own code.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
LABEL org.opencontainers.image.title=generation-service-gateway
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/apps/gateway ./dist/apps/gateway
COPY --from=build /app/dist/apps/dashboard ./dist/apps/dashboard
COPY --from=build /app/dist/libs/config ./dist/libs/config
COPY --from=build /app/dist/libs/contracts ./dist/libs/contracts
COPY --from=build /app/dist/libs/errors ./dist/libs/errors
COPY --from=build /app/dist/libs/model-inputs ./dist/libs/model-inputs
COPY --from=build /app/dist/libs/observability ./dist/libs/observability
COPY --from=build /app/dist/libs/persistence ./dist/libs/persistence
COPY --from=build /app/dist/libs/storage ./dist/libs/storage
COPY --from=build /app/dist/libs/transport ./dist/libs/transport
COPY --from=build /app/dist/libs/webhook-policy ./dist/libs/webhook-policy
COPY --from=build /app/dist/libs/webhook-signature ./dist/libs/webhook-signature
COPY package.json ./
# Where outputs are written and served (a volume in compose, a shared volume or none in Kubernetes),
# owned by the runtime user so that a fresh named volume inherits a writable directory.
RUN mkdir -p /var/lib/gen/outputs && chown node:node /var/lib/gen/outputs
USER node
EXPOSE 3000
# Docker and compose only (Kubernetes uses the probes in k8s/): the process answers /healthz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself (drain, then exit 0), so no init wrapper is needed.
ENTRYPOINT ["node"]
CMD ["dist/apps/gateway/src/main.js"]
