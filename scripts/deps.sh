#!/usr/bin/env bash
# Source this file from the repository root, after node24.sh: installs the project's dependencies
# on first use (a fresh clone) and again when package-lock.json has changed since.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "Installing the project's dependencies (npm ci, about 30 s)..." >&2
	npm ci --no-audit --no-fund --loglevel=error >&2 || { echo "npm ci failed" >&2; return 1 2>/dev/null || exit 1; }
fi
