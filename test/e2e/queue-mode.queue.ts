import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	delay,
	isFinished,
	jsonItems,
	NODE,
	waitFor,
	type N8nHome,
	type QueueRun,
} from '../../scripts/n8n';

/** n8n accepts one cron entry per fixed second: four of them poll every 15 seconds. */
const POLL_EVERY_MS = 15_000;
const POLL_TIMES = {
	item: [0, 15, 30, 45].map((second) => ({
		mode: 'custom',
		cronExpression: `${second} * * * * *`,
	})),
};
const iso = (ms: number) => new Date(ms).toISOString();

const upserts = (prefix: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		externalId: `${prefix}-${index}`,
		deviceName: `Queue ${prefix} ${index}`,
		status: 'New',
		hardwareVendor: 'Dell',
		assetType: 'Laptop',
	}));

describe('n8n in queue mode: a main, two workers, Redis and Postgres', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let upsertId: string;
	let slowUpsertId: string;
	let triggerId: string;
	const tokenRequests = () =>
		sandbox.journal().filter((call) => call.path === '/connect/token').length;

	/** Runs a workflow through main's REST API; resolves with the execution id at once. */
	async function startRun(workflowId: string): Promise<string> {
		const { main } = await home.startQueue();
		const executionId = await main.rest.runWorkflow(workflowId, 'Start');
		return executionId;
	}

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 500 });
		home = await createN8nHome({ queue: true });
		const credential = { id: 'stockroomQueueE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		[upsertId, slowUpsertId, triggerId] = await home.importWorkflows([
			buildWorkflow('Queue upserts', credential, [
				[
					{
						name: 'Rows',
						type: NODE.code,
						parameters: {
							jsCode: `return Array.from({ length: 20 }, (_, i) => ({ json: { externalId: 'Q-' + $execution.id + '-' + i, deviceName: 'Queue ' + i, status: 'New', hardwareVendor: 'Dell', assetType: 'Laptop' } }));`,
						},
					},
					{
						name: 'Upsert',
						type: NODE.asset,
						parameters: { operation: 'upsert', inputMode: 'json' },
					},
				],
			]),
			buildWorkflow('Queue slow upserts', credential, [
				[
					jsonItems('Rows', upserts('KILL', 60)),
					{
						name: 'Upsert',
						type: NODE.asset,
						parameters: { operation: 'upsert', inputMode: 'json' },
					},
				],
			]),
			buildWorkflow(
				'Queue trigger',
				credential,
				[
					[
						{
							name: 'Assets synced',
							type: NODE.trigger,
							parameters: { resource: 'assets', event: 'assetSynced', pollTimes: POLL_TIMES },
						},
					],
				],
				{ start: false, settings: { timezone: 'UTC' } },
			),
		]);
		await home.publishWorkflow(triggerId);
		sandbox.resetStats();
		await home.startQueue(2);
	}, 300_000);

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('runs go to the workers, never to main, and both workers take work', async () => {
		const runs = await Promise.all(
			Array.from(
				{ length: 6 },
				async () => await home.waitForExecution(await startRun(upsertId), 120_000),
			),
		);
		for (const run of runs) {
			expect(run).toMatchObject({
				status: 'success',
				worker: expect.stringMatching(/^worker-[12]$/),
			});
			expect(run.outputs.Upsert).toHaveLength(20);
		}
		expect(new Set(runs.map((run) => run.worker)).size).toBe(2);
		expect(home.queue!.main!.output()).not.toContain('Worker started execution');
		for (const run of runs) {
			for (let index = 0; index < 20; index++) {
				expect(sandbox.store.assets.findByExternalId(`Q-${run.id}-${index}`)).toBeDefined();
			}
		}
	});

	test('the token is shared through the credential store: concurrent runs on both workers reuse it, and one that expired is renewed', async () => {
		// the previous test stored a token in the credential
		sandbox.resetStats();
		const reuse = await Promise.all(
			Array.from(
				{ length: 4 },
				async () => await home.waitForExecution(await startRun(upsertId), 120_000),
			),
		);
		expect(reuse.map((run) => run.status)).toEqual(['success', 'success', 'success', 'success']);
		expect(tokenRequests()).toBe(0);

		// the token expires; main's trigger polls and the runs on both workers all meet that
		sandbox.resetStats();
		sandbox.expireTokens();
		const renewed = await Promise.all(
			Array.from(
				{ length: 4 },
				async () => await home.waitForExecution(await startRun(upsertId), 120_000),
			),
		);
		expect(renewed.map((run) => run.status)).toEqual(['success', 'success', 'success', 'success']);
		expect(new Set(renewed.map((run) => run.worker)).size).toBe(2);
		// whoever met the expired token first renewed it into the credential store, and the others
		// used the renewed one: one renewal, or two when two processes met the expiry at once
		const renewals = tokenRequests();
		expect(renewals).toBeGreaterThanOrEqual(1);
		expect(renewals).toBeLessThanOrEqual(2);
	}, 240_000);

	test('the trigger polls on main and its executions run on workers; across restarts of main and of a worker each change is emitted once', async () => {
		const sync = async (index: number) => {
			const response = await fetch(
				`${sandbox.url}/api/assets/v1/${sandbox.store.assets.all()[index].id}`,
				{
					method: 'PATCH',
					headers: {
						authorization: `Bearer ${sandbox.token()}`,
						'content-type': 'application/json',
					},
					body: JSON.stringify({ lastSyncDtm: iso(Date.now() - 3_600_000) }),
				},
			);
			expect(response.status).toBe(200);
			return String(((await response.json()) as IDataObject).id);
		};
		const emitted = () =>
			home
				.readExecutions({ workflowId: triggerId })
				.flatMap((execution) => execution.outputs['Assets synced'] ?? [])
				.map((record) => String(record.id));
		const waitForEmitted = async (count: number) => {
			await waitFor(
				`${count} emitted assets`,
				() => (emitted().length >= count ? true : undefined),
				120_000,
			);
			// one more poll: anything emitted twice would show
			await delay(POLL_EVERY_MS + 5000);
			return await waitFor(
				'trigger executions to finish',
				() => {
					const executions = home.readExecutions({ workflowId: triggerId });
					return executions.every(isFinished) ? executions : undefined;
				},
				60_000,
			);
		};

		const changed = [await sync(1), await sync(2), await sync(3)];
		await waitForEmitted(3);

		const queue = home.queue!;
		await queue.main!.stop();
		queue.main = undefined;
		changed.push(await sync(4), await sync(5));
		await home.startQueue(2);
		await waitForEmitted(5);

		await queue.workers[0].stop();
		queue.workers.shift();
		changed.push(await sync(6));
		await home.startQueue(2);
		changed.push(await sync(7));
		const executions: QueueRun[] = await waitForEmitted(7);

		expect(emitted().sort()).toEqual(changed.sort());
		for (const execution of executions) {
			expect(execution).toMatchObject({ mode: 'trigger', status: 'success' });
			expect(execution.worker).toMatch(/^worker-[123]$/);
		}
		expect(queue.main!.output()).not.toContain('Worker started execution');
	}, 600_000);

	test('a worker killed mid-run: every write the service acknowledged is kept, none is duplicated, and n8n reports the run as crashed', async () => {
		sandbox.setFaults('slow:1');
		sandbox.resetStats();
		const executionId = await startRun(slowUpsertId);
		const worker = await waitFor(
			'a worker to take the run',
			() =>
				home.queue!.workers.find((candidate) =>
					candidate.startedExecutions().includes(executionId),
				),
			60_000,
			100,
		);
		await waitFor(
			'some writes to be acknowledged',
			() =>
				sandbox.journal().filter((call) => call.method === 'PUT' && call.status === 200).length >= 5
					? true
					: undefined,
			60_000,
			100,
		);
		await worker.kill();
		sandbox.setFaults('');
		const acknowledged = sandbox
			.journal()
			.filter((call) => call.method === 'PUT' && call.status === 200)
			.map((call) => String((call.body as IDataObject).externalId));

		const queue = home.queue!;
		queue.workers.splice(queue.workers.indexOf(worker), 1);
		await home.startQueue(2);
		const run = await home.waitForExecution(executionId, 180_000);

		for (const externalId of acknowledged) {
			expect(sandbox.store.assets.findByExternalId(externalId)).toBeDefined();
		}
		const written = sandbox.store.assets
			.all()
			.filter((record) => String(record.externalId).startsWith('KILL-'));
		expect(new Set(written.map((record) => record.externalId)).size).toBe(written.length);
		expect(run.status).toBe('crashed');

		// Create or Update by External ID makes running it again safe: each asset once, all there
		const again = await home.waitForExecution(await startRun(slowUpsertId), 120_000);
		expect(again.status).toBe('success');
		const all = sandbox.store.assets
			.all()
			.filter((record) => String(record.externalId).startsWith('KILL-'))
			.map((record) => record.externalId);
		expect(all.sort()).toEqual(
			upserts('KILL', 60)
				.map((row) => row.externalId)
				.sort(),
		);
	}, 300_000);
});
