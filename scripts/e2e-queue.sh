#!/usr/bin/env bash
# `npm run e2e:queue`: the node and trigger suites and the queue-mode tests in n8n's queue mode,
# with durable poller cursors (`npm run e2e` runs them single-process, without). Installs
# Debian's redis-server and postgresql when missing (needs root); every test starts its own Redis
# and Postgres on loopback and stops them after. Ends with a plain `N passed, N failed` line.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1

if [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
	echo "Installing redis-server and postgresql from Debian (about 15 s)..." >&2
	if [ "$(id -u)" -ne 0 ]; then echo "queue mode needs root to install them" >&2; echo "0 passed, 1 failed"; exit 1; fi
	(apt-get install -y -q redis-server postgresql >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q redis-server postgresql >/dev/null; }) ||
		{ echo "could not install redis-server and postgresql" >&2; echo "0 passed, 1 failed"; exit 1; }
fi

npm run -s build || exit 1
bash scripts/n8n-install.sh > /dev/null || exit 1

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
STOCKROOM_E2E_QUEUE=1 STOCKROOM_E2E_DURABLE_CURSORS=1 npx jest -c jest.e2e-queue.config.js --runInBand --json --outputFile="$results" "$@"
status=$?
node -e '
	const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
	console.log(`\n${r.numPassedTests} passed, ${failed} failed`);
' "$results" 2>/dev/null || echo "0 passed, 1 failed"
exit $status
