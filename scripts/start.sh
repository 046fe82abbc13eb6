#!/usr/bin/env bash
# `npm start`: builds the package, installs n8n on first use, then runs scripts/start.ts, which
# starts the sandbox and n8n with everything set up and stops both on Ctrl-C.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1

npm run -s build
# compiles scripts/start.ts, the harness and the sandbox into build/
npm run -s build:dev
bash scripts/n8n-install.sh > /dev/null
# exec: Ctrl-C goes straight to the controller, which shuts the children down in order
exec node build/scripts/start.js "$@"
