#!/usr/bin/env bash
# Source this file: makes sure Debian's redis-server and postgresql are installed (queue mode needs
# them; installing needs root). The system services stay off: tests and benchmarks start private
# instances on loopback and stop them after.
if [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
	echo "Installing redis-server and postgresql from Debian (about 15 s)..." >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "queue mode needs redis-server and postgresql; installing them needs root" >&2
		return 1 2>/dev/null || exit 1
	fi
	(apt-get install -y -q redis-server postgresql >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q redis-server postgresql >/dev/null; }) ||
		{ echo "could not install redis-server and postgresql" >&2; return 1 2>/dev/null || exit 1; }
fi
