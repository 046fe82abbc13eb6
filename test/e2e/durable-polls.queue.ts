import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	delay,
	NODE,
	type N8nHome,
	type N8nServer,
} from '../../scripts/n8n';

/**
 * n8n's durable scheduler (2.36+, with durable poller cursors) runs polls of one trigger at once
 * and hands each the state stored when its task began; a poll's own state is stored after it
 * returned. Eight Poll Times on each instant make that happen at every instant: each sync must
 * still be emitted once. (One n8n process with SQLite: the race needs no queue mode, and this
 * runs with `npm run e2e:queue` because that suite is the one on n8n 2.36+ with durable cursors.)
 */
const SYNCS = 8;
const POLL_TIMES_AT_ONCE = {
	item: [0, 10, 20, 30, 40, 50].flatMap((second) =>
		[
			'* * * * *',
			'*/1 * * * *',
			'0-59 * * * *',
			'* */1 * * *',
			'* * */1 * *',
			'* * * */1 *',
			'* 0-23 * * *',
			'*/1 */1 * * *',
		].map((rest) => ({ mode: 'custom', cronExpression: `${second} ${rest}` })),
	),
};

describe('Stockroom Trigger under the durable scheduler, polled eight times at each instant', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer | undefined;

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
	});

	test(`${SYNCS} syncs, one between each two instants: each emitted once`, async () => {
		sandbox = await createSandbox({ records: 2000 });
		home = await createN8nHome({ durableCursors: true, queue: false });
		const credential = { id: 'stockroomDurablePolls', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		const [workflowId] = await home.importWorkflows([
			buildWorkflow(
				'Assets synced, polled at once',
				credential,
				[
					[
						{
							name: 'Assets synced',
							type: NODE.trigger,
							parameters: {
								resource: 'assets',
								event: 'assetSynced',
								pollTimes: POLL_TIMES_AT_ONCE,
							},
						},
					],
				],
				{ start: false, settings: { timezone: 'UTC' } },
			),
		]);
		await home.publishWorkflow(workflowId);
		server = await home.start();
		await delay(15_000);

		const synced: string[] = [];
		for (const record of sandbox.store.assets.all().slice(0, SYNCS)) {
			const response = await fetch(`${sandbox.url}/api/assets/v1/${record.id}`, {
				method: 'PATCH',
				headers: {
					authorization: `Bearer ${sandbox.token()}`,
					'content-type': 'application/json',
				},
				body: JSON.stringify({ lastSyncDtm: new Date().toISOString() }),
			});
			expect(response.status).toBe(200);
			synced.push(record.id);
			await delay(11_000);
		}
		await delay(15_000);

		// stop between two instants: n8n 2.41.1 can crash when it exits while polls build their
		// expression isolates (real-n8n.md)
		await delay(10_000 - ((Date.now() + 5000) % 10_000));
		await server.stop();
		server = undefined;

		const emitted = home
			.readExecutions({ workflowId })
			.flatMap((execution) => execution.outputs['Assets synced'] ?? [])
			.map((record) => String(record.id));
		expect(emitted.sort()).toEqual(synced.sort());
	}, 240_000);
});
