import { spawn } from 'node:child_process';

import { preloadPath } from '../../../scripts/n8n/paths';

/**
 * Runs a script, under the n8n preload unless told otherwise; returns how many bytes stdout
 * delivered and the exit code (null, with the signal, when a signal ended the process).
 */
function runPreloaded(script: string, preloaded = true) {
	const child = spawn(process.execPath, [...(preloaded ? ['-r', preloadPath] : []), '-e', script], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let bytes = 0;
	child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
	return new Promise<{ bytes: number; code: number | null; signal: string | null }>(
		(resolve, reject) => {
			child.on('error', reject);
			child.on('close', (code, signal) => resolve({ bytes, code, signal }));
		},
	);
}

describe('n8n preload', () => {
	// n8n prints `execute --rawOutput` results and then calls process.exit(); stdout to a pipe is
	// asynchronous, and without the preload a slow reader gets a few hundred KB of a 5 MB run
	it('lets stdout reach a pipe reader in full before process.exit() ends the process', async () => {
		const size = 5_000_000;
		const { bytes, code } = await runPreloaded(
			`process.stdout.write('x'.repeat(${size})); process.exit(3)`,
		);
		expect({ bytes, code }).toEqual({ bytes: size, code: 3 });
	});

	// n8n stops without waiting for a poll in flight, and a poll builds an isolate of its own when
	// the engine's pool is empty: n8n 1.123.81 died with SIGSEGV on stop in CI that way. Here three
	// isolates are still being built when process.exit() is called, imported as n8n 2.41 does.
	const exitWhileBuildingIsolates = `
		import('@n8n/expression-runtime').then((runtime) => {
			for (let i = 0; i < 3; i++) {
				new runtime.IsolatedVmBridge({ timeout: 5000, memoryLimit: 128 }).initialize();
			}
			setTimeout(() => process.exit(5), 40);
		});`;

	it('exits with the code n8n gave while isolates are still being built (without it: SIGSEGV)', async () => {
		const { code, signal } = await runPreloaded(exitWhileBuildingIsolates);
		expect({ code, signal }).toEqual({ code: 5, signal: null });
	});

	// the case above must be the crash it guards against, or the test above proves nothing
	it('the same script without the preload crashes', async () => {
		const crashes = [];
		for (let run = 0; run < 3; run++) {
			crashes.push((await runPreloaded(exitWhileBuildingIsolates, false)).signal);
		}
		expect(crashes).toContain('SIGSEGV');
	});
});
