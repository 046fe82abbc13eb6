// Preload for every n8n process we run: `node -r scripts/n8n-preload.cjs …/n8n/bin/n8n …`.
// n8n (2.41.1, and 1.123.x, which has the same isolated-vm expression engine) calls process.exit()
// while the expression engine may still be building an isolate on a background thread, and the
// process then dies with SIGSEGV (exit 139) after printing correct results. Disposing the engine
// first, with a cap, makes the exit clean. Disposing it does not cover an isolate that a running
// poll or execution is building for itself (the engine's pool holds one; every other caller
// builds its own): n8n stops without waiting for polls in flight. So every isolate bridge is
// tracked from its creation, and the exit waits for those still being built and disposes those
// still held (test/unit/harness/preload.test.ts builds the crash and checks the exit).
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

const Module = require('node:module');

/** Isolate bridges not yet disposed, and the builds (initialize calls) still under way. */
const liveBridges = new Set();
const bridgeBuilds = new Set();

/** Wraps the bridge class's initialize and dispose so that both sets stay current. */
function trackBridges(Bridge) {
	const { initialize, dispose } = Bridge.prototype;
	Bridge.prototype.initialize = function trackedInitialize(...args) {
		liveBridges.add(this);
		const build = Promise.resolve(initialize.apply(this, args));
		const settled = build.catch(() => undefined).finally(() => bridgeBuilds.delete(settled));
		bridgeBuilds.add(settled);
		return build;
	};
	Bridge.prototype.dispose = function trackedDispose(...args) {
		liveBridges.delete(this);
		return dispose.apply(this, args);
	};
}

// the expression runtime is loaded on demand (n8n-workflow requires it when the engine starts):
// wrap its bridge class the first time a module exporting it is loaded, then stop looking
const realLoad = Module._load;
Module._load = function loadAndTrackBridges(...args) {
	const exported = realLoad.apply(this, args);
	const Bridge = exported && exported.IsolatedVmBridge;
	if (typeof Bridge === 'function' && Bridge.prototype && Bridge.prototype.initialize) {
		trackBridges(Bridge);
		Module._load = realLoad;
	}
	return exported;
};

/**
 * Waits for isolates still being built, then disposes every bridge still held, then lets the
 * event loop turn once more: isolated-vm releases a disposed isolate on its own threads, and an
 * exit in the same turn as the dispose still crashed (21 of 30 runs of the test's script; with
 * the turn, 0 of 30).
 */
async function disposeBridges() {
	while (bridgeBuilds.size > 0) await Promise.all([...bridgeBuilds]);
	await Promise.all([...liveBridges].map((bridge) => bridge.dispose()));
	await new Promise((resolve) => setTimeout(resolve, 10));
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
		.then(() => capped(disposeBridges, DISPOSE_CAP_MS))
		.then(() =>
			capped(() => Promise.all([flushed(process.stdout), flushed(process.stderr)]), FLUSH_CAP_MS),
		)
		.finally(() => realExit());
	return undefined;
};
