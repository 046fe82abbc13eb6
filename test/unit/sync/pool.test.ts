import { runPooled } from '../../../nodes/shared/pool';

/** Tasks that each take a few milliseconds, counting how many run at once. */
function counter() {
	let running = 0;
	const seen = { most: 0, order: [] as number[] };
	const task = async (index: number) => {
		seen.order.push(index);
		seen.most = Math.max(seen.most, ++running);
		await new Promise((resolve) => setTimeout(resolve, 3));
		running--;
	};
	return { seen, task };
}

describe('the worker pool of every write', () => {
	test.each([
		[40, 8, 8],
		// the first alone, then the other four together
		[5, 8, 4],
		[1, 8, 1],
		[12, 1, 1],
	])(
		'%i tasks with a limit of %i: at most %i at once, started in order',
		async (count, limit, most) => {
			const { seen, task } = counter();
			await runPooled(count, limit, task);
			expect(seen.most).toBe(most);
			expect(seen.order).toEqual(Array.from({ length: count }, (_, index) => index));
		},
	);

	test('the first task runs alone (a token is fetched once), then the limit applies', async () => {
		const starts: number[] = [];
		let firstDone = -1;
		await runPooled(10, 4, async (index) => {
			starts.push(index);
			await new Promise((resolve) => setTimeout(resolve, 2));
			if (index === 0) firstDone = starts.length;
		});
		// when task 0 finished, no other had started
		expect(firstDone).toBe(1);
	});

	test('once stopped, no task starts; those under way finish', async () => {
		const started: number[] = [];
		let stop = false;
		await runPooled(
			20,
			4,
			async (index) => {
				started.push(index);
				if (index === 2) stop = true;
				await new Promise((resolve) => setTimeout(resolve, 2));
			},
			() => stop,
		);
		// task 0 alone, then the workers start 1 and 2; task 2 stops the pool before 3 starts
		expect(started).toEqual([0, 1, 2]);
	});

	test('a task that throws rejects the pool, and no task starts after it', async () => {
		const started: number[] = [];
		const run = runPooled(20, 4, async (index) => {
			started.push(index);
			if (index === 2) throw new Error('lookup 2 failed');
			await new Promise((resolve) => setTimeout(resolve, 2));
		});
		await expect(run).rejects.toThrow('lookup 2 failed');
		await new Promise((resolve) => setTimeout(resolve, 20));
		// task 0 alone, then the four workers start 1 to 4 together; 2 throws, and none starts after
		expect(started).toEqual([0, 1, 2, 3, 4]);
	});

	test('no task: nothing runs', async () => {
		const { seen, task } = counter();
		await runPooled(0, 8, task);
		expect(seen.order).toEqual([]);
	});
});
