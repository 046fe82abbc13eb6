#!/usr/bin/env bash
# End-to-end tests in real n8n: builds the package, makes sure n8n is installed in the cache, runs
# test/e2e/**/*.e2e.ts one file at a time and ends with a plain `N passed, N failed` line.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1

npm run -s build || exit 1
bash scripts/n8n-install.sh > /dev/null || exit 1

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
npx jest -c jest.e2e.config.js --runInBand --json --outputFile="$results" "$@"
status=$?
node -e '
	const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
	console.log(`\n${r.numPassedTests} passed, ${failed} failed`);
' "$results" 2>/dev/null || echo "0 passed, 1 failed"
exit $status
