import { createServer } from 'node:net';

import { HarnessError } from './errors';

/**
 * Ports this process has handed out: the OS may offer a port again as soon as the probe that found
 * it closes (69 repeats in 1,000 calls here), and n8n's own port and its task broker's, taken one
 * after the other, once came out the same (CI: "Task Broker's port ... is already in use").
 */
const handedOut = new Set<number>();

/** A port that was free a moment ago (the OS picks it), never one this process handed out before. */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = await probeFreePort();
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		return port;
	}
}

async function probeFreePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => {
				if (address && typeof address === 'object') resolve(address.port);
				else reject(new Error('no port'));
			});
		});
	});
}

/** Whether something already listens on the port. */
export async function isPortTaken(port: number, host = '127.0.0.1'): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(true));
		server.listen(port, host, () => server.close(() => resolve(false)));
	});
}

export async function delay(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves after `ms` without keeping the process alive: for racing against a timeout. */
export async function deadline(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The first value `check` returns other than undefined, tried every `intervalMs`; throws after `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	check: () => T | undefined,
	timeoutMs: number,
	intervalMs = 500,
): Promise<T> {
	const started = Date.now();
	for (;;) {
		const value = check();
		if (value !== undefined) return value;
		if (Date.now() - started > timeoutMs) {
			throw new HarnessError(`Gave up after ${timeoutMs} ms waiting for ${what}`);
		}
		await delay(intervalMs);
	}
}
