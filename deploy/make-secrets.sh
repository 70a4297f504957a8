#!/bin/sh
# Creates the three secrets compose.postgres.yaml reads, once: the PostgreSQL password, the JWT
# signing secret and the API-key encryption key, 256 random bits each (hex), in ./secrets (or the
# directory given). Never overwrites one that exists: the encryption key must outlive every API key
# made under it, so keep these files (and back them up) for as long as the database.
#
#   sh deploy/make-secrets.sh [directory]
#
# The directory is 0700 (only its owner reaches the files); the files are 0644 so that the
# containers' own users (svc: uid 10001, postgres) can read the bind-mounted copies.
set -eu
dir=${1:-${SVC_SECRETS_DIR:-./secrets}}
umask 077
mkdir -p "$dir"
chmod 0700 "$dir"
for name in db_password jwt_secret_key encryption_key; do
  if [ -s "$dir/$name" ]; then
    echo "make-secrets: $dir/$name exists, kept"
    continue
  fi
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$dir/$name.tmp"
  chmod 0644 "$dir/$name.tmp"
  mv "$dir/$name.tmp" "$dir/$name"
  echo "make-secrets: wrote $dir/$name"
done
