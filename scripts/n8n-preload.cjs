// Preload for every n8n process we run: `node -r scripts/n8n-preload.cjs …/n8n/bin/n8n …`.
// n8n 2.41.1 calls process.exit() while the expression engine (isolated-vm) may still be building
// an isolate on a background thread, and the process then dies with SIGSEGV (exit 139) after
// printing correct results. Disposing the engine first, with a cap, makes the exit clean.
// process.exit() also drops whatever stdout still holds for a slow pipe reader (seen in CI: the
// JSON of `n8n execute --rawOutput` cut off mid-record), so the exit waits for stdout and stderr
// to be flushed as well.
'use strict';

const path = require('node:path');

const DISPOSE_CAP_MS = 5000;
const FLUSH_CAP_MS = 30000;
const EXPRESSION_MODULE = path.join('n8n-workflow', 'dist', 'cjs', 'expression.js');

/** The Expression class of the n8n-workflow copy n8n itself loaded, if it loaded one. */
function loadedExpressionClass() {
	for (const [file, mod] of Object.entries(require.cache)) {
		if (file.endsWith(EXPRESSION_MODULE) && mod && mod.exports && mod.exports.Expression) {
			return mod.exports.Expression;
		}
	}
	return undefined;
}

const realExit = process.exit.bind(process);
let exiting = false;

/** Resolves once everything written so far to the stream has been handed to the OS. */
function flushed(stream) {
	return new Promise((resolve) => {
		if (!stream || stream.destroyed || !stream.writable) return resolve();
		stream.write('', () => resolve());
	});
}

/** Waits for `work` at most `capMs`, ignoring its failure. */
function capped(work, capMs) {
	let timer;
	const cap = new Promise((resolve) => {
		timer = setTimeout(resolve, capMs);
	});
	return Promise.race([Promise.resolve().then(work), cap])
		.catch(() => undefined)
		.finally(() => clearTimeout(timer));
}

process.exit = function exitAfterDisposingExpressionEngine(code) {
	// n8n may call exit again from a shutdown handler while we wait; the first call wins
	if (exiting) return undefined;
	exiting = true;
	if (code !== undefined) process.exitCode = code;
	const Expression = loadedExpressionClass();
	const dispose =
		Expression && typeof Expression.disposeExpressionEngine === 'function'
			? capped(() => Expression.disposeExpressionEngine(), DISPOSE_CAP_MS)
			: Promise.resolve();
	dispose
		.then(() =>
			capped(() => Promise.all([flushed(process.stdout), flushed(process.stderr)]), FLUSH_CAP_MS),
		)
		.finally(() => realExit());
	return undefined;
};
