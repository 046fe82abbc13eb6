import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import type { FaultKind } from '../../sandbox/faults';
import {
	buildWorkflow,
	createN8nHome,
	jsonItems,
	NODE,
	N8N_VERSION,
	type N8nHome,
	type NodeSpec,
	type WorkflowRun,
} from '../../scripts/n8n';

/**
 * The service's faults met in real n8n, on whichever n8n `N8N_VERSION` names (the error an HTTP
 * call throws differs between n8n 1.x and 2.x, and the transport must read both): a list read
 * page by page and a batch of upserts, each hit by one fault mid-way, end with every record
 * exactly once; a token that expired between runs is renewed by n8n.
 */

const ROWS = Array.from({ length: 20 }, (_, index) => ({
	externalId: `E2E-FAULT-${index + 1}`,
	deviceName: `Fault test ${index + 1}`,
	status: 'New',
	hardwareVendor: 'Dell',
}));
/** Tokens live this long: long enough for a run, short enough to expire between two. */

const asset = (name: string, parameters: IDataObject): NodeSpec => ({
	name,
	type: NODE.asset,
	parameters,
});

describe(`faults of the service in real n8n ${N8N_VERSION}`, () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let workflowId: string;
	/** The assets' ids when the last run started (the list runs before the upserts). */
	let before: unknown[];
	/** The API calls of a method, leaving out those refused for an expired token (n8n resends them). */
	const api = (method: string) =>
		sandbox
			.journal()
			.filter(
				(call) => call.method === method && call.path.startsWith('/api/') && call.status !== 401,
			);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 2000 });
		home = await createN8nHome();
		const credential = { id: 'stockroomFaultsE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		workflowId = await home.importWorkflow(
			buildWorkflow('Faults', credential, [
				[
					asset('All assets', {
						operation: 'getAll',
						returnAll: true,
						options: { pageSize: 500, timeoutSeconds: 2 },
					}),
				],
				[
					jsonItems('Rows', ROWS),
					asset('Upsert rows', {
						operation: 'upsert',
						inputMode: 'json',
						options: { timeoutSeconds: 2 },
					}),
				],
			]),
		);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	/** Runs the workflow with one `kind` fault on the list's third call and one on the fifth PUT. */
	async function runWith(kind: FaultKind): Promise<WorkflowRun> {
		sandbox.resetStats();
		// the list asks for 4 or 5 pages (2000 records and the rows of earlier runs, 500 a page):
		// calls 1-2 pass, the 3rd meets the fault; after 4 more calls, a PUT meets it again
		sandbox.failNext(1, kind, 2);
		sandbox.failNext(1, kind, 2 + 4);
		return await execute();
	}

	async function execute(): Promise<WorkflowRun> {
		before = sandbox.store.assets.all().map((record) => record.id);
		return await home.executeWorkflow(workflowId);
	}

	function expectEveryRecordOnce(run: WorkflowRun): void {
		expect(run.error).toBeUndefined();
		expect(run.nodeErrors).toEqual({});
		expect(run.outputs['All assets'].map((record) => record.id)).toEqual(before);
		const written = run.outputs['Upsert rows'];
		expect(written.map((record) => record.externalId)).toEqual(ROWS.map((row) => row.externalId));
		// one asset per External ID at the service, however often a PUT was sent
		for (const row of ROWS) {
			const stored = sandbox.store.assets
				.all()
				.filter((record) => record.externalId === row.externalId);
			expect(stored).toHaveLength(1);
			expect(stored[0]).toMatchObject(row);
		}
	}

	test.each([
		['429', 429],
		['503', 503],
		['502', 502],
	] as const)('%s answers are waited out and the call is sent again', async (kind, status) => {
		const run = await runWith(kind);
		expectEveryRecordOnce(run);
		expect(api('GET').filter((call) => call.status === status)).toHaveLength(1);
		expect(api('PUT').filter((call) => call.status === status)).toHaveLength(1);
		// the page and the PUT that met the fault were sent again and answered
		expect(api('GET').filter((call) => call.status === 200)).toHaveLength(
			Math.ceil(before.length / 500),
		);
		expect(api('PUT').filter((call) => call.status === 200 || call.status === 201)).toHaveLength(
			ROWS.length,
		);
	});

	test.each(['maintenance', 'shape'] as const)(
		'an answer that is not the service’s (%s, status 200) is not read as "nothing there": the call is sent again',
		async (kind) => {
			const run = await runWith(kind);
			expectEveryRecordOnce(run);
			// the gateway answered instead of the service: the PUT it swallowed is sent again
			expect(api('GET').filter((call) => call.fault === kind)).toHaveLength(1);
			expect(api('PUT').filter((call) => call.fault === kind)).toHaveLength(1);
			expect(api('GET').filter((call) => call.fault === undefined)).toHaveLength(
				Math.ceil(before.length / 500),
			);
			expect(api('PUT')).toHaveLength(ROWS.length + 1);
		},
	);

	test('JSON cut short in a whole answer: the page is read again, the PUT (already done) is sent again', async () => {
		const run = await runWith('truncated');
		expectEveryRecordOnce(run);
		expect(api('GET').filter((call) => call.fault === 'truncated')).toHaveLength(1);
		expect(api('PUT')).toHaveLength(ROWS.length + 1);
	});

	test('a connection dropped before the answer: the call is sent again', async () => {
		const run = await runWith('reset');
		expectEveryRecordOnce(run);
		// the dropped calls reached the sandbox but have no status: sent once more each
		expect(api('GET').filter((call) => call.status === undefined)).toHaveLength(1);
		expect(api('PUT').filter((call) => call.status === undefined)).toHaveLength(1);
		expect(api('PUT')).toHaveLength(ROWS.length + 1);
	});

	test('an answer cut half-way: the page is read again, the PUT (already done) is sent again', async () => {
		const run = await runWith('cut');
		expectEveryRecordOnce(run);
		// a cut page is asked for again; the PUT took effect and its repeat changes nothing
		expect(api('GET').length).toBeGreaterThanOrEqual(5);
		expect(api('PUT')).toHaveLength(ROWS.length + 1);
	});

	test('a call that never answers gives up after the Timeout and is sent again', async () => {
		const run = await runWith('hang');
		expectEveryRecordOnce(run);
		expect(api('GET').length).toBeGreaterThanOrEqual(5);
		expect(api('PUT')).toHaveLength(ROWS.length + 1);
	});

	test('a token that expired since the last run: the service says 401, n8n renews it, the run goes on', async () => {
		await execute();
		sandbox.expireTokens();
		sandbox.resetStats();
		const renewed = await execute();
		expectEveryRecordOnce(renewed);
		const calls = sandbox.journal();
		expect(calls[0]).toMatchObject({ path: '/api/assets/v1', status: 401 });
		expect(
			calls.filter((call) => call.path === '/connect/token').map((call) => call.status),
		).toEqual([200]);
		expect(calls.filter((call) => call.status === 401)).toHaveLength(1);
	});
});
