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

source scripts/queue-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

# STOCKROOM_E2E_BUILT=1: dist/ is already built (CI builds once and runs suites side by side)
[ "${STOCKROOM_E2E_BUILT:-}" = 1 ] || npm run -s build || exit 1
bash scripts/n8n-install.sh > /dev/null || exit 1

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
STOCKROOM_E2E_QUEUE=1 STOCKROOM_E2E_DURABLE_CURSORS=1 npx jest -c jest.e2e-queue.config.js --runInBand --json --outputFile="$results" "$@"
status=$?
node scripts/jest-summary.cjs "$results" --files 2>/dev/null || echo "0 passed, 1 failed"
exit $status
