#!/bin/sh
# A copy of the machine tool ../shared/tools/container-images.sh, for a clone that has no ../shared
# beside it (.ci/run uses the shared tool when it is there, this copy otherwise). Keep the two alike.
#
# Prepares this kind of machine (Debian 12, root, no container image registry reachable) to build and
# run OCI images with podman, and makes local stand-ins for the base images a Dockerfile or compose
# file names: debian:bookworm(-slim), node:20(-slim, -bookworm, -bookworm-slim) from this machine's own
# Node, and postgres:15 (Debian's PostgreSQL with the official image's POSTGRES_USER/PASSWORD/DB).
# Nothing is pulled: never use --pull or pull_policy: always. Takes about 2 minutes the first time.
#
#   sh ../shared/tools/container-images.sh        # then: export CONTAINERS_CONF=$HOME/.config/svc-containers.conf
#   podman build -t svc . ; podman-compose up -d ; podman-compose down ; podman network prune -f
#
# Known limits here: no systemd, so healthchecks never run by themselves (poll readiness yourself,
# e.g. curl or pg_isready, instead of depends_on: service_healthy); node as PID 1 ignores SIGTERM
# unless it handles it (use --init or handle signals).
set -eu
export DEBIAN_FRONTEND=noninteractive
CONF=${CONTAINERS_CONF:-$HOME/.config/svc-containers.conf}
mkdir -p "$(dirname "$CONF")"
command -v podman >/dev/null 2>&1 && command -v podman-compose >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq
  apt-get install -y -qq podman buildah runc debootstrap podman-compose >/dev/null
}
# The machine's hard limits are below podman's root defaults, and crun refuses its hybrid cgroups.
cat > "$CONF" <<'CONFEND'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONFEND
export CONTAINERS_CONF="$CONF"

# The Debian mirror and security archive this machine's apt already uses (as apt reports them).
MIRROR=$(apt-cache policy | awk '$3 == "bookworm/main" {print $2; exit}')
SECURITY=$(apt-cache policy | awk '$3 == "bookworm-security/main" {print $2; exit}')
[ -n "$MIRROR" ] || { echo "container-images: apt reports no Debian bookworm mirror (run apt-get update)" >&2; exit 1; }

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
if ! podman image exists localhost/debian:bookworm; then
  R="$W/rootfs"
  debootstrap --variant=minbase bookworm "$R" "$MIRROR" >/dev/null
  {
    echo "deb $MIRROR bookworm main"
    echo "deb $MIRROR bookworm-updates main"
    [ -n "$SECURITY" ] && echo "deb $SECURITY bookworm-security main"
  } > "$R/etc/apt/sources.list"
  rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/lib/apt/lists/*
  # Images trust what this machine trusts (its outbound TLS is re-signed).
  mkdir -p "$R/usr/local/share/ca-certificates" "$R/etc/ssl/certs"
  cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/"
  tar -C "$R" -c . | podman import --change 'CMD ["/bin/bash"]' - localhost/debian:bookworm >/dev/null
  for t in bookworm bookworm-slim 12 12-slim; do podman tag localhost/debian:bookworm "docker.io/library/debian:$t"; done
fi
if ! podman image exists localhost/node:20-bookworm; then
  C="$W/node"; mkdir -p "$C/usr/bin" "$C/usr/lib/node_modules"
  cp "$(command -v node)" "$C/usr/bin/node"
  cp -a "$(npm root -g)/npm" "$C/usr/lib/node_modules/"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$C/usr/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$C/usr/bin/npx"
  printf '%s\n' 'FROM localhost/debian:bookworm' 'COPY usr/ /usr/' \
    'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' 'RUN node --version && npm --version' > "$C/Dockerfile"
  podman build -q -t localhost/node:20-bookworm "$C" >/dev/null
  for t in 20 20-slim 20-bookworm 20-bookworm-slim; do podman tag localhost/node:20-bookworm "docker.io/library/node:$t"; done
fi
if ! podman image exists localhost/postgres:15; then
  P="$W/pg"; mkdir -p "$P"
  cat > "$P/entrypoint.sh" <<'PGEND'
#!/bin/sh
# A stand-in for the official postgres image's entrypoint: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD required}" > /tmp/pw
  initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pw
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != "${POSTGRES_USER:-postgres}" ]; then
    postgres -D "$PGDATA" -c listen_addresses='' &
    pid=$!; until pg_isready -q -h /run/postgresql; do sleep 0.2; done
    createdb -h /run/postgresql -U "${POSTGRES_USER:-postgres}" "$POSTGRES_DB"
    kill $pid; wait $pid || true
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
PGEND
  cat > "$P/Dockerfile" <<'PGEND'
FROM localhost/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY entrypoint.sh /entrypoint.sh
RUN chmod +x /entrypoint.sh && mkdir -p /var/lib/postgresql/data /run/postgresql && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
USER postgres
EXPOSE 5432
ENTRYPOINT ["/entrypoint.sh"]
PGEND
  podman build -q -t localhost/postgres:15 "$P" >/dev/null
  for t in 15 15-bookworm; do podman tag localhost/postgres:15 "docker.io/library/postgres:$t"; done
fi
echo "container-images: ready; export CONTAINERS_CONF=$CONF"
