#!/usr/bin/env bash
# `npm run bench [-- --quick]`: builds the package and the bench, makes sure n8n is installed in
# the cache, then runs build/bench/main.js (see bench/main.ts). Results: stdout, bench/results.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1
# the queue-mode figure runs n8n with Redis and Postgres
source scripts/queue-deps.sh

npm run -s build >&2
npm run -s build:dev >&2
bash scripts/n8n-install.sh > /dev/null
# the in-process sandbox that n8n talks to runs with the same V8 flags as `npm run sandbox`
exec node --max-semi-space-size=4 build/bench/main.js "$@"
