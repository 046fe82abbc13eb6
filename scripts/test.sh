#!/usr/bin/env bash
# `npm test`: build, lint (n8n's verification scan + strict lint), type-check everything, then
# the unit, sandbox and integration suites over real HTTP. Ends with `N passed, N failed`.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1

step() { echo; echo "── $1"; }
fail() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

# STOCKROOM_E2E_BUILT=1: dist/ is built (CI builds once, and end-to-end suites beside this one use it)
if [ "${STOCKROOM_E2E_BUILT:-}" = 1 ] && [ -d dist ]; then
	step 'build: dist/ built by the caller'
else
	step 'build' && { npm run -s build >/dev/null || fail 'build failed'; }
fi
step 'type-check tests, sandbox and tools' && { npx tsc -p tsconfig.dev.json --noEmit || fail 'type errors'; }
step 'lint' && { npm run -s lint || fail 'lint failed'; }
step 'tests'
results="$(mktemp)"
alone="$(mktemp)"
trap 'rm -f "$results" "$alone"' EXIT
if [ $# -gt 0 ]; then
	npx jest --json --outputFile="$results" "$@"
	status=$?
	outputs=("$results")
else
	# the memory test measures what a list keeps alive: it runs in a jest process of its own, since
	# in the shared one what earlier test files left behind was counted as the node's (a page's worth)
	memory_test='test/integration/memory\.test\.ts$'
	npx jest --json --outputFile="$results" --testPathIgnorePatterns "$memory_test"
	status=$?
	npx jest --json --outputFile="$alone" "$memory_test"
	[ $? -eq 0 ] || status=1
	outputs=("$results" "$alone")
fi
node scripts/jest-summary.cjs "${outputs[@]}" || fail 'no test results'
exit $status
