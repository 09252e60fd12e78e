# syntax=docker/dockerfile:1
# The operator CLI's image (apps/cli; its version is apps/cli/package.json's): accounts, keys, credits,
# models, and `migrate` (every schema, or one with --service); compose's migration job runs it. The CLI composes every service's module, so it carries the
# whole compiled tree (not the benchmarks); the services' images do not carry it.
#   docker build -f docker/cli.Dockerfile -t generation-service-cli:$(node -p "require('./apps/cli/package.json').version") .
#   docker run --rm -e DATABASE_URL=... generation-service-cli:1.0.0 dist/apps/cli/src/main.js accounts list
# Node 22, the LTS line; a production build pins the base by digest (docs/operations/kubernetes.md).
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

# 3. Runtime: the compiled apps and libs and production dependencies, owned by root, run as the
#    unprivileged `node` user (uid 1000).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
LABEL org.opencontainers.image.title=generation-service-cli
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
COPY package.json ./
USER node
# A command that exits: healthy while it runs (compose's migrate service waits for it to finish).
HEALTHCHECK NONE
ENTRYPOINT ["node"]
CMD ["dist/apps/cli/src/main.js", "--help"]
