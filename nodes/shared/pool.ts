/** Writes in flight at once: Create or Update's items and Sync's changes alike. */
export const WRITES_AT_ONCE = 8;

/**
 * The one worker pool of the nodes' requests (writes, and lookups in batches): runs `task(0)` ...
 * `task(count - 1)`, starting them in index order with at most `limit` under way at once. The
 * first runs alone: it may wait for n8n to fetch a token, and when it fails (a wrong secret, a
 * missing scope) nothing more is sent. `stopped` is asked before each start; once it is true no
 * task starts (those under way finish). A task that throws rejects the pool's promise, and no
 * task starts after it either.
 */
export async function runPooled(
	count: number,
	limit: number,
	task: (index: number) => Promise<void>,
	stopped: () => boolean = () => false,
): Promise<void> {
	let next = 0;
	let threw = false;
	const worker = async (until: number) => {
		while (next < until && !threw && !stopped()) {
			await task(next++).catch((error: unknown) => {
				threw = true;
				throw error;
			});
		}
	};
	await worker(Math.min(1, count));
	const workers = Math.max(0, Math.min(limit, count - next));
	await Promise.all(Array.from({ length: workers }, async () => await worker(count)));
}
