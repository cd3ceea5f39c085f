#!/bin/sh
# Temporal's PostgreSQL schema (`setup.sh schema`, before the server starts) and the namespace
# with the search attributes every toolCall workflow carries (a batch item's BatchId too) (`setup.sh namespace`, once it
# answers). The same commands under `npm run start:cluster` (scripts/stack/temporal-server.ts)
# and in docker-compose.yml (temporalio/admin-tools). Each step succeeds again when done before.
# Environment: POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD; TEMPORAL_ADDRESS,
# TEMPORAL_NAMESPACE (default `default`), NAMESPACE_RETENTION (default 24h); for a frontend behind
# TLS, the service's own settings (docs/CONFIGURATION.md): TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT,
# TEMPORAL_TLS_KEY, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY.
set -eu

# The service's names for TLS, in the `temporal` CLI's (TEMPORAL_TLS_SERVER_NAME and
# TEMPORAL_API_KEY are the CLI's own names too; any of them turns its TLS on).
if [ -n "${TEMPORAL_TLS_CA:-}" ]; then export TEMPORAL_TLS_SERVER_CA_CERT_PATH="$TEMPORAL_TLS_CA"; fi
if [ -n "${TEMPORAL_TLS_CERT:-}" ]; then export TEMPORAL_TLS_CLIENT_CERT_PATH="$TEMPORAL_TLS_CERT"; fi
if [ -n "${TEMPORAL_TLS_KEY:-}" ]; then export TEMPORAL_TLS_CLIENT_KEY_PATH="$TEMPORAL_TLS_KEY"; fi

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" \
    -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

case "${1:-}" in
schema)
  for db in temporal visibility; do
    name=$db
    [ "$db" = visibility ] && name=temporal_visibility
    sql --db "$name" create-database 2>/dev/null || echo "database $name exists"
    sql --db "$name" setup-schema -v 0.0
    sql --db "$name" update-schema --schema-name "postgresql/v12/$db"
  done
  ;;
namespace)
  ns="${TEMPORAL_NAMESPACE:-default}"
  temporal operator namespace describe --namespace "$ns" >/dev/null 2>&1 \
    || temporal operator namespace create --namespace "$ns" --retention "${NAMESPACE_RETENTION:-24h}"
  # A new namespace reaches the server's namespace cache within ~10 s: retry until it has. One
  # attribute at a time, so a namespace made before BatchId existed gains it.
  for attribute in AccountId Tool BatchId; do
    tries=0
    until temporal operator search-attribute create --namespace "$ns" --name "$attribute" --type Keyword 2>/dev/null \
      || temporal operator search-attribute list --namespace "$ns" 2>/dev/null | grep -qw "$attribute"; do
      tries=$((tries + 1))
      [ "$tries" -ge 60 ] && { echo "search attribute $attribute not registered" >&2; exit 1; }
      sleep 1
    done
  done
  ;;
*)
  echo "usage: setup.sh schema|namespace" >&2
  exit 2
  ;;
esac
