import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A child process's stdout and stderr, written by the child straight into a file and read back
 * synchronously. Whatever the child wrote before something we saw elsewhere (a finished
 * execution in the database) is already in the file when we look: a pipe gives no such promise,
 * since its data reaches us only when our event loop next reads it (a worker's "started
 * execution" line was missed that way for a run that failed fast: CI, queue mode).
 */
export interface ChildLog {
	readonly path: string;
	/** For `spawn`'s stdio: stdout and stderr into the file. */
	readonly stdio: ['ignore', number, number];
	/** Closes our copy of the file descriptor once the child has its own. */
	spawned(): void;
	/** Everything the child has written so far. */
	text(): string;
}

export function openChildLog(dir: string, name: string): ChildLog {
	const file = path.join(dir, `${name}-${Date.now()}.log`);
	const fd = openSync(file, 'a');
	return {
		path: file,
		stdio: ['ignore', fd, fd],
		spawned: () => closeSync(fd),
		text: () => readFileSync(file, 'utf8'),
	};
}
