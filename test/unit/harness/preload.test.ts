import { spawn } from 'node:child_process';

import { preloadPath } from '../../../scripts/n8n/paths';

/** Runs a script under the n8n preload; returns how many bytes stdout delivered and the exit code. */
function runPreloaded(script: string) {
	const child = spawn(process.execPath, ['-r', preloadPath, '-e', script], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let bytes = 0;
	child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
	return new Promise<{ bytes: number; code: number | null }>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', (code) => resolve({ bytes, code }));
	});
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
});
