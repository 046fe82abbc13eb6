#!/usr/bin/env bash
# Source this file: makes sure Debian's Chromium is here for the browser tests (installing needs
# root). Exports STOCKROOM_CHROMIUM, the browser Playwright drives.
export STOCKROOM_CHROMIUM=/usr/bin/chromium
if [ ! -x "$STOCKROOM_CHROMIUM" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "the browser tests need Chromium: apt-get install -y chromium (as root)" >&2
	else
		echo "Installing Chromium from Debian for the browser tests (about a minute)..." >&2
		# two suites started side by side wait for each other's install
		apt-get install -y -q -o DPkg::Lock::Timeout=600 chromium >/dev/null 2>&1 ||
			{ apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null 2>&1 &&
				apt-get install -y -q -o DPkg::Lock::Timeout=600 chromium >/dev/null; } ||
			echo "could not install Chromium: the browser tests will fail" >&2
	fi
fi
