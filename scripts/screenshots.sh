#!/usr/bin/env bash
# `npm run screenshots`: builds the package, installs n8n on first use, then runs
# scripts/screenshots.ts, which photographs the editor into docs/ with Debian's headless Chromium.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
source scripts/node24.sh
source scripts/deps.sh || exit 1

if [ ! -x /usr/bin/chromium ]; then
	echo "Chromium is missing: install Debian's package (apt-get install -y chromium)" >&2
	exit 1
fi
npm run -s build
# compiles scripts/screenshots.ts, the harness and the sandbox into build/
npm run -s build:dev
bash scripts/n8n-install.sh > /dev/null
node build/scripts/screenshots.js
