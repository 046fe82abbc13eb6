#!/usr/bin/env bash
# Installs n8n (default 2.41.1) once into a cache folder outside the repository and prints that
# folder on stdout. Later calls reuse it. Progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/node24.sh"
N8N_VERSION="${N8N_VERSION:-2.41.1}"
home="$STOCKROOM_CACHE/n8n-$N8N_VERSION"
bin="$home/node_modules/n8n/bin/n8n"

if [ -f "$home/.complete" ] && [ -x "$bin" ]; then
	echo "$home"
	exit 0
fi

started=$(date +%s)
echo "Installing n8n $N8N_VERSION into $home (first run only: about 5 minutes and 3 GB)..." >&2
rm -rf "$home" && mkdir -p "$home"
cd "$home"
# n8n pins an xlsx tarball on an unreachable CDN; linkedom 0.18.15 needs a package the registry lacks
cat > package.json <<JSON
{ "private": true, "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "xlsx": "0.18.5", "linkedom": "0.18.12" } }
JSON
# a dependency's install script downloads native code from the internet; only sqlite3 must be built
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
echo "Building sqlite3 for Node $(node -v) (about 90 s)..." >&2
npm_config_build_from_source=true npm rebuild sqlite3 --loglevel=error >&2
touch .complete
echo "n8n $N8N_VERSION installed in $(( $(date +%s) - started )) s" >&2
echo "$home"
