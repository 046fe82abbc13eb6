#!/usr/bin/env bash
# `npm start`: builds the package, installs n8n on first use, then runs scripts/start.ts, which
# starts the sandbox and n8n with everything set up and stops both on Ctrl-C.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh

npm run -s build
# compiles scripts/start.ts, the harness and the sandbox into build/; type errors elsewhere in the
# test code must not keep the demo from starting (tsc still emits)
npm run -s build:dev || echo "(type errors above; starting anyway)" >&2
bash scripts/n8n-install.sh > /dev/null
# exec: Ctrl-C goes straight to the controller, which shuts the children down in order
exec node build/scripts/start.js "$@"
