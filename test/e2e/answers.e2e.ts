import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	jsonItems,
	locator,
	NODE,
	N8N_VERSION,
	type N8nHome,
	type NodeSpec,
} from '../../scripts/n8n';

/**
 * Every operation of every node in real n8n while the service's address answers status 200 with
 * what is not the service (a gateway's maintenance page, JSON cut short, another JSON): each item
 * fails, saying so, and none is a success with nothing in it; once the service is back, the same
 * workflow reads and writes every record once. And a connection failure keeps this package's
 * message on every n8n version, where n8n would put its own text for an error code in its place.
 */

const OPTIONS = { maxAttempts: 2, maxRetryWaitSeconds: 5 };

/** The records one workflow reads, changes and deletes (each workflow its own). */
function targets(sandbox: Sandbox, offset: number) {
	const assets = sandbox.store.assets.all().slice(offset);
	const contracts = sandbox.store.contracts.all().slice(offset);
	return {
		asset: assets[0],
		updated: assets[1],
		deleted: assets[2],
		contract: contracts[0],
		removed: contracts[1],
		user: sandbox.store.users.all()[offset],
		externalId: `E2E-ANSWER-${offset}`,
	};
}

/** The node under test for each operation, and the items it gets. */
function branches({
	asset,
	updated,
	deleted,
	contract,
	removed,
	user,
	externalId,
}: ReturnType<typeof targets>): Array<[NodeSpec, IDataObject[]]> {
	const tested = (name: string, type: string, parameters: IDataObject): NodeSpec => ({
		name,
		type,
		parameters: { ...parameters, options: { ...(parameters.options as IDataObject), ...OPTIONS } },
		continueOnFail: true,
	});
	const one = [{}];
	return [
		[tested('Asset Get Many', NODE.asset, { operation: 'getAll', returnAll: true }), one],
		[tested('Asset Get', NODE.asset, { operation: 'get', asset: locator('id', asset.id) }), one],
		[
			tested('Asset Create or Update', NODE.asset, { operation: 'upsert', inputMode: 'json' }),
			[1, 2].map((n) => ({
				externalId: `${externalId}-${n}`,
				deviceName: `Answer ${n}`,
				status: 'New',
				hardwareVendor: 'Dell',
			})),
		],
		[
			tested('Asset Update', NODE.asset, {
				operation: 'update',
				asset: locator('id', updated.id),
				updateFields: { notes: 'updated through a gateway' },
			}),
			one,
		],
		[
			tested('Asset Delete', NODE.asset, {
				operation: 'delete',
				asset: locator('id', deleted.id),
				options: { ignoreNotFound: true },
			}),
			one,
		],
		[tested('Contract Get Many', NODE.contract, { operation: 'getAll', returnAll: true }), one],
		[
			tested('Contract Get', NODE.contract, {
				operation: 'get',
				contract: locator('id', contract.id),
			}),
			one,
		],
		[
			tested('Contract Create or Update', NODE.contract, {
				operation: 'upsert',
				externalId: `${externalId}-CT`,
				ref: 'PO-ANSWER',
				type: 'MSA',
				vendorName: 'Answer Inc',
				agreementDate: '2026-01-15',
			}),
			one,
		],
		[
			tested('Contract Delete', NODE.contract, {
				operation: 'delete',
				contract: locator('id', removed.id),
				options: { ignoreNotFound: true },
			}),
			one,
		],
		[tested('User Get Many', NODE.user, { operation: 'getAll', returnAll: true }), one],
		[tested('User Get', NODE.user, { operation: 'get', user: locator('id', user.id) }), one],
	];
}

/** Operations whose answer has no body, which cannot be cut short. */
const EMPTY_ANSWERS = ['Asset Delete', 'Contract Delete'];

describe(`answers that are not the service's, in real n8n ${N8N_VERSION}`, () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	/** Workflows by the records they work on, and those records (as they were at the start). */
	const workflows = new Map<number, string>();
	const records = new Map<number, ReturnType<typeof targets>>();
	let connectionWorkflowId: string;
	/** The names of the nodes under test. */
	let tested: string[];

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		home = await createN8nHome();
		const credential = { id: 'stockroomAnswersE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		const offsets = [0, 10];
		for (const offset of offsets) records.set(offset, targets(sandbox, offset));
		tested = branches(records.get(0)!).map(([node]) => node.name);
		const ids = await home.importWorkflows([
			...offsets.map((offset) =>
				buildWorkflow(
					`Every operation, records from ${offset}`,
					credential,
					branches(records.get(offset)!).map(([node, items]) => [
						jsonItems(`${node.name} input`, items),
						node,
					]),
				),
			),
			buildWorkflow('Connection failure', credential, [
				[
					jsonItems('Row', [
						{ externalId: 'EPERM-7', deviceName: 'x', status: 'New', hardwareVendor: 'Dell' },
					]),
					{
						name: 'Upsert',
						type: NODE.asset,
						parameters: { operation: 'upsert', inputMode: 'json', options: OPTIONS },
					},
				],
			]),
		]);
		offsets.forEach((offset, index) => workflows.set(offset, ids[index]));
		connectionWorkflowId = ids[offsets.length];
	}, 120_000);

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	/** Runs a workflow with every API call meeting `kind`; checks each item failed saying so. */
	async function runUnder(kind: 'maintenance' | 'shape' | 'truncated', offset: number) {
		const stored = JSON.stringify([sandbox.store.assets.all(), sandbox.store.contracts.all()]);
		sandbox.setFaults(`${kind}:1`);
		sandbox.resetStats();
		const run = await home.executeWorkflow(workflows.get(offset)!);
		sandbox.setFaults('');
		expect(run.error).toBeUndefined();
		for (const name of tested) {
			const items = run.outputs[name];
			expect({ name, count: items.length }).toEqual({
				name,
				count: run.outputs[`${name} input`].length,
			});
			if (kind === 'truncated' && EMPTY_ANSWERS.includes(name)) {
				// nothing to cut short: the service's answer, whole
				expect(items).toEqual([expect.objectContaining({ deleted: true })]);
				continue;
			}
			for (const [index, item] of items.entries()) {
				expect({ name, ...item }).toEqual({
					name,
					error: expect.stringMatching(
						new RegExp(
							`^Could not .+: the answer is not the service's \\(HTTP 200, .+\\): .+ \\[item ${index}\\]$`,
						),
					),
					message: expect.stringMatching(/^Expected .+ Tried 2 times\.$/),
				});
			}
		}
		const apiCalls = sandbox.journal().filter((call) => call.path.startsWith('/api/'));
		expect(new Set(apiCalls.map((call) => call.fault))).toEqual(new Set([kind]));
		// a gateway's answer means the call never reached the service
		if (kind !== 'truncated')
			expect(JSON.stringify([sandbox.store.assets.all(), sandbox.store.contracts.all()])).toBe(
				stored,
			);
	}

	/** Runs a workflow with the service back; checks every record was read or written once. */
	async function runRecovered(offset: number, deletedEarlier: boolean) {
		const { asset, updated, deleted, contract, removed, externalId } = records.get(offset)!;
		const listed = sandbox.store.assets.all().map((record) => record.id);
		sandbox.resetStats();
		const run = await home.executeWorkflow(workflows.get(offset)!);

		expect(run.error).toBeUndefined();
		for (const name of tested) {
			const failed = run.outputs[name].filter((item) => 'error' in item);
			expect({ name, failed }).toEqual({ name, failed: [] });
		}
		// Get Many runs first: the assets as they were, each once
		expect(run.outputs['Asset Get Many'].map((record) => record.id)).toEqual(listed);
		expect(run.outputs['Asset Get']).toEqual([sandbox.store.assets.get(asset.id)]);
		for (const n of [1, 2]) {
			expect(
				sandbox.store.assets.all().filter((record) => record.externalId === `${externalId}-${n}`),
			).toHaveLength(1);
		}
		expect(sandbox.store.assets.get(updated.id)?.notes).toBe('updated through a gateway');
		expect(sandbox.store.assets.get(deleted.id)).toBeUndefined();
		expect(sandbox.store.contracts.get(removed.id)).toBeUndefined();
		const gone = { deleted: false, notFound: true };
		expect(run.outputs['Asset Delete']).toEqual([
			deletedEarlier ? { id: deleted.id, ...gone } : { id: deleted.id, deleted: true },
		]);
		expect(run.outputs['Contract Delete']).toEqual([
			deletedEarlier ? { id: removed.id, ...gone } : { id: removed.id, deleted: true },
		]);
		expect(run.outputs['Contract Get']).toEqual([sandbox.store.contracts.get(contract.id)]);
		expect(
			sandbox.store.contracts.all().filter((record) => record.externalId === `${externalId}-CT`),
		).toHaveLength(1);
		expect(run.outputs['User Get Many']).toHaveLength(sandbox.store.users.all().length);
		// no call needed asking twice
		expect(sandbox.journal().filter((call) => call.fault !== undefined)).toEqual([]);
	}

	test.each(['maintenance', 'shape'] as const)(
		'a gateway answering %s instead of the service: every item of every operation fails saying so, and nothing changes',
		async (kind) => await runUnder(kind, 0),
	);

	test('then, with the service back, the same workflow reads and writes every record once', async () => {
		await runRecovered(0, false);
	});

	test('JSON cut short in whole answers: every item whose answer has a body fails saying so; with the service back, nothing is written twice', async () => {
		await runUnder('truncated', 10);
		await runRecovered(10, true);
	});

	test('a connection failure keeps the package’s message, though it names an error code n8n knows', async () => {
		sandbox.setFaults('reset:1');
		const run = await home.executeWorkflow(connectionWorkflowId);
		sandbox.setFaults('');
		expect(run.error).toMatchObject({
			message: `Could not create or update the asset "EPERM-7": the connection failed (ECONNRESET) at ${sandbox.url} [item 0]`,
			description:
				"Check the credential's Base URL and that the service is reachable from n8n. Tried 2 times.",
		});
	});
});
