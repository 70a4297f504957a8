# syntax=docker/dockerfile:1
# The svc image: the API and the web UI on one port, SQLite under /data by default, PostgreSQL with
# SVC_DATABASE_URL. Build context: the repository root.
#
#   podman build -t svc .        (or: docker build -t svc .)
#
# Two stages: `build` installs every dependency, compiles (TypeScript, the web UI, better-sqlite3),
# then makes a production tree; the final stage holds that tree only — no compiler, no development
# dependency, no test file.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles from source (its prebuilt download is not used).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Manifests first, so a change of source code reuses the dependency layer.
COPY package.json package-lock.json ./
COPY openapi/package.json openapi/
COPY server/package.json server/
COPY sdk/package.json sdk/
COPY cli/package.json cli/
COPY web/package.json web/
COPY test/package.json test/
COPY bench/package.json bench/
# node-gyp builds against the headers that come with this Node (no download needed).
RUN export npm_config_nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")" \
 && test -f "$npm_config_nodedir/include/node/node.h" \
 && npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY . .
RUN npm run build
# The production tree in /out: the server, the CLI (for the offline tools), the SDK the CLI uses,
# the built web UI, and their production dependencies; the compiled better-sqlite3 is kept.
RUN mkdir -p /out \
 && cp -r node_modules/better-sqlite3/build /tmp/better-sqlite3-build \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace=server --workspace=cli --workspace=sdk \
 && cp -r /tmp/better-sqlite3-build node_modules/better-sqlite3/build \
 && find server/dist cli/dist sdk/dist \( -name '*.test.*' -o -name '*.map' -o -name '*.d.ts' -o -name '*.tsbuildinfo' \) -delete \
 && rm -rf server/dist/testing cli/dist/testing sdk/dist/testing sdk/dist/mocks \
 && cp -r package.json node_modules /out/ \
 && for p in server cli sdk; do \
      mkdir -p /out/$p && cp -r $p/package.json $p/dist /out/$p/ \
      && for extra in bin node_modules; do [ ! -d $p/$extra ] || cp -r $p/$extra /out/$p/; done; \
    done \
 && mkdir -p /out/web && cp -r web/dist /out/web/ \
 && rm -rf /out/node_modules/@svc/web /out/node_modules/@svc/test /out/node_modules/@svc/bench /out/node_modules/@svc/openapi

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    SVC_HOME=/data
WORKDIR /app
COPY --from=build /out/ /app/
# A user of its own; /data is the volume SVC_HOME lives on.
RUN groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
 && mkdir -p /data && chown svc:svc /data && chmod 0700 /data
USER svc
VOLUME ["/data"]
EXPOSE 9997
# Liveness: /status answers while the process serves (readiness for load balancers is /ready).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9997/status').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM and SIGINT itself: it stops accepting, finishes the requests in
# flight, flushes the audit trail and exits 0.
ENTRYPOINT ["node", "server/dist/bin/svc-local.js", "--host", "0.0.0.0", "--port", "9997"]
