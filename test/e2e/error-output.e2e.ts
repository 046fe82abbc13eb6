import { randomUUID } from 'node:crypto';

import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	jsonItems,
	locator,
	NODE,
	toNode,
	type CredentialRef,
	type N8nHome,
	type N8nServer,
	type WorkflowJson,
} from '../../scripts/n8n';

/** n8n's three On Error settings. */
const SETTINGS = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const;
type Setting = (typeof SETTINGS)[number];

const NODES = {
	asset: new StockroomAsset(),
	contract: new StockroomContract(),
	user: new StockroomUser(),
};
type NodeKey = keyof typeof NODES;

/** Every operation a node offers, from its description (so a new one cannot be left out here). */
const operationsOf = (node: NodeKey) =>
	(
		NODES[node].description.properties.find(
			(property: INodeProperties) => property.name === 'operation',
		)!.options as Array<{ value: string }>
	).map((option) => option.value);

const MISSING_ID = '0'.repeat(24);

/**
 * One operation run over three input items, the middle one bad. `failsBeforeSending`: the bad item
 * is refused before any request (so On Error: Stop writes nothing); otherwise the service refuses
 * it. `written`: for writes, whether the service holds each item's write afterwards.
 */
interface Scenario {
	node: NodeKey;
	operation: string;
	parameters: IDataObject;
	items: (setting: number) => IDataObject[];
	failsBeforeSending: boolean;
	written?: (sandbox: Sandbox, setting: number) => boolean[];
	/**
	 * The operation works on its input as a whole (Apply Sync Plan reads one plan): its one item is
	 * bad, and the refusal is one error item paired with it, or the run's error.
	 */
	whole?: boolean;
}

/** A plan whose entries do not add up to its ID: Apply Sync Plan refuses it before reading. */
const notAPlan = (resource: string) => ({
	carried: 1,
	resource,
	planId: 'p2-c1-u0-s0-r0-d0-m0-f0-0000000000000000',
	entries: [],
});

function scenarios(sandbox: Sandbox): Scenario[] {
	// copies: the tables change as the scenarios write and delete
	const assets = [...sandbox.store.assets.all()];
	const contracts = [...sandbox.store.contracts.all()];
	const users = [...sandbox.store.users.all()];
	// each operation and setting gets records of its own: three per setting
	const asset = (offset: number, setting: number, index: number) =>
		assets[offset + setting * 3 + index];
	const contract = (offset: number, setting: number, index: number) =>
		contracts[offset + setting * 3 + index];
	const validAsset = (externalId: string) => ({
		externalId,
		deviceName: `Error output ${externalId}`,
		status: 'New',
		hardwareVendor: 'Dell',
		assetType: 'Laptop',
	});
	const validContract = (externalId: string) => ({
		externalId,
		ref: `PO-${externalId}`,
		type: 'OrderForm',
		vendorName: 'Error output vendor',
		agreementDate: '2026-01-15',
	});
	const byId = (ids: string[]) => ids.map((id) => ({ id }));
	const filters = (good: string) => [
		{ filter: good },
		{ filter: 'stauts eq "New"' },
		{ filter: good },
	];
	return [
		{
			node: 'asset',
			operation: 'upsert',
			parameters: { inputMode: 'json' },
			items: (s) => [
				validAsset(`EO-AU-${s}-0`),
				{ ...validAsset(`EO-AU-${s}-1`), status: 'Lost' },
				validAsset(`EO-AU-${s}-2`),
			],
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.assets.findByExternalId(`EO-AU-${s}-${i}`) !== undefined),
		},
		{
			node: 'asset',
			operation: 'sync',
			// the scope is this setting's three assets (its prefix, from item 0)
			// one failed row of three is more than the default Max Failed Rows allows (10 %)
			parameters: {
				maxFailedPercent: 100,
				fieldsToSync: ['assetType', 'deviceName', 'hardwareVendor', 'status'],
				filterMode: 'expression',
				filterExpression: `={{ 'externalId sw "' + $json.externalId.slice(0, -1) + '"' }}`,
			},
			items: (s) => [
				validAsset(`EO-SY-${s}-0`),
				{ ...validAsset(`EO-SY-${s}-1`), status: 'Lost' },
				validAsset(`EO-SY-${s}-2`),
			],
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.assets.findByExternalId(`EO-SY-${s}-${i}`) !== undefined),
		},
		{
			node: 'asset',
			operation: 'update',
			parameters: {
				asset: locator('id', '={{ $json.id }}'),
				updateFields: { deviceName: '={{ "Updated " + $json.id }}' },
			},
			items: (s) => byId([asset(0, s, 0).id, 'not-an-id', asset(0, s, 2).id]),
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map(
					(i) =>
						box.store.assets.get(asset(0, s, i).id)?.deviceName === `Updated ${asset(0, s, i).id}`,
				),
		},
		{
			node: 'asset',
			operation: 'delete',
			parameters: { asset: locator('id', '={{ $json.id }}') },
			items: (s) => byId([asset(20, s, 0).id, 'not-an-id', asset(20, s, 2).id]),
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.assets.get(asset(20, s, i).id) === undefined),
		},
		{
			node: 'asset',
			operation: 'get',
			parameters: { asset: locator('id', '={{ $json.id }}') },
			items: (s) => byId([asset(40, s, 0).id, MISSING_ID, asset(40, s, 2).id]),
			failsBeforeSending: false,
		},
		{
			node: 'asset',
			operation: 'getAll',
			parameters: {
				returnAll: true,
				filterMode: 'expression',
				filterExpression: '={{ $json.filter }}',
			},
			items: () => filters(`externalId eq "${String(assets[60].externalId)}"`),
			failsBeforeSending: true,
		},
		{
			node: 'asset',
			operation: 'applyPlan',
			parameters: {},
			items: () => [{ plan: notAPlan('asset') }],
			failsBeforeSending: true,
			whole: true,
		},
		{
			node: 'contract',
			operation: 'applyPlan',
			parameters: {},
			items: () => [{ plan: notAPlan('contract') }],
			failsBeforeSending: true,
			whole: true,
		},
		{
			node: 'contract',
			operation: 'upsert',
			parameters: { inputMode: 'json' },
			items: (s) => [
				validContract(`EO-CU-${s}-0`),
				{ ...validContract(`EO-CU-${s}-1`), type: 'Bogus' },
				validContract(`EO-CU-${s}-2`),
			],
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.contracts.findByExternalId(`EO-CU-${s}-${i}`) !== undefined),
		},
		{
			node: 'contract',
			operation: 'sync',
			// one item per contract; the scope is this setting's three contracts (its prefix)
			parameters: {
				maxFailedPercent: 100,
				inputShape: 'contracts',
				fieldsToSync: ['agreementDate', 'ref', 'type', 'vendorName'],
				filterMode: 'expression',
				filterExpression: `={{ 'externalId sw "' + $json.externalId.slice(0, -1) + '"' }}`,
			},
			items: (s) => [
				validContract(`EO-CS-${s}-0`),
				{ ...validContract(`EO-CS-${s}-1`), type: 'Bogus' },
				validContract(`EO-CS-${s}-2`),
			],
			failsBeforeSending: true,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.contracts.findByExternalId(`EO-CS-${s}-${i}`) !== undefined),
		},
		{
			node: 'contract',
			operation: 'delete',
			parameters: { contract: locator('id', '={{ $json.id }}') },
			items: (s) => byId([contract(0, s, 0).id, MISSING_ID, contract(0, s, 2).id]),
			failsBeforeSending: false,
			written: (box, s) =>
				[0, 1, 2].map((i) => box.store.contracts.get(contract(0, s, i).id) === undefined),
		},
		{
			node: 'contract',
			operation: 'get',
			parameters: { contract: locator('id', '={{ $json.id }}') },
			items: (s) => byId([contract(20, s, 0).id, MISSING_ID, contract(20, s, 2).id]),
			failsBeforeSending: false,
		},
		{
			node: 'contract',
			operation: 'getAll',
			parameters: {
				returnAll: true,
				filterMode: 'expression',
				filterExpression: '={{ $json.filter }}',
			},
			items: () => filters(`externalId eq "${String(contracts[40].externalId)}"`),
			failsBeforeSending: true,
		},
		{
			node: 'user',
			operation: 'get',
			parameters: { user: locator('id', '={{ $json.id }}') },
			items: () => byId([users[0].id, 'f'.repeat(32), users[2].id]),
			failsBeforeSending: false,
		},
		{
			node: 'user',
			operation: 'getAll',
			parameters: {
				returnAll: true,
				filterMode: 'expression',
				filterExpression: '={{ $json.filter }}',
			},
			items: () => filters(`userName eq "${users[1].userName}"`),
			failsBeforeSending: true,
		},
	];
}

/** Start → the items → the node under test with the setting; with the error output, two ends. */
function workflow(
	scenario: Scenario,
	setting: Setting,
	credential: CredentialRef,
	items: IDataObject[],
): WorkflowJson {
	const name = `${scenario.node} ${scenario.operation} ${setting}`;
	const start = toNode({ name: 'Start', type: NODE.manualTrigger }, [0, 0], credential);
	const input = toNode(jsonItems('Items', items), [200, 0], credential);
	const tested = {
		...toNode(
			{
				name: 'Tested',
				type: NODE[scenario.node],
				parameters: { operation: scenario.operation, ...scenario.parameters },
			},
			[400, 0],
			credential,
		),
		onError: setting,
	};
	const success = toNode({ name: 'Success', type: NODE.noOp }, [600, -100], credential);
	const failure = toNode({ name: 'Failure', type: NODE.noOp }, [600, 100], credential);
	const to = (node: string) => [{ node, type: 'main', index: 0 }];
	return {
		id: randomUUID().replace(/-/g, '').slice(0, 16),
		name,
		nodes: [start, input, tested, success, failure],
		connections: {
			Start: { main: [to('Items')] },
			Items: { main: [to('Tested')] },
			Tested: {
				main: setting === 'continueErrorOutput' ? [to('Success'), to('Failure')] : [to('Success')],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

describe('every operation under each On Error setting, in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer;
	let all: Scenario[];
	const ids = new Map<string, string>();
	const key = (scenario: Scenario, setting: Setting) =>
		`${scenario.node} ${scenario.operation} ${setting}`;

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		all = scenarios(sandbox);
		home = await createN8nHome();
		const credential = { id: 'stockroomErrorOutput', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		const workflows = all.flatMap((scenario) =>
			SETTINGS.map((setting, index) =>
				workflow(scenario, setting, credential, scenario.items(index)),
			),
		);
		const imported = await home.importWorkflows(workflows);
		workflows.forEach((definition, index) => ids.set(definition.name, imported[index]));
		server = await home.start();
	}, 300_000);

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
	});

	test('the scenarios cover every operation of every node', () => {
		for (const node of Object.keys(NODES) as NodeKey[]) {
			expect(
				all
					.filter((scenario) => scenario.node === node)
					.map((scenario) => scenario.operation)
					.sort(),
			).toEqual(operationsOf(node).sort());
		}
	});

	/** Runs the workflow through n8n's engine and returns the tested node's outputs. */
	async function run(scenario: Scenario, setting: Setting) {
		const executionId = await server.rest.runWorkflow(ids.get(key(scenario, setting))!, 'Start');
		const execution = await home.waitForExecution(executionId, 60_000);
		const task = execution.data.resultData.runData.Tested?.[0];
		const outputs = (task?.data?.main ?? []) as Array<INodeExecutionData[] | null>;
		return { execution, success: outputs[0] ?? [], failure: outputs[1] ?? [] };
	}

	const pairedTo = (items: INodeExecutionData[]) =>
		items.map((item) => (item.pairedItem as { item: number }).item);

	describe.each(SETTINGS.map((setting, index) => [setting, index] as const))(
		'On Error: %s',
		(setting, index) => {
			test.each(
				['asset', 'contract', 'user'].flatMap((node) =>
					operationsOf(node as NodeKey).map((operation) => [node, operation]),
				),
			)(
				'%s %s: each item leaves by the right branch, paired with its input, and only good items are written',
				async (node, operation) => {
					const scenario = all.find(
						(candidate) => candidate.node === node && candidate.operation === operation,
					)!;
					const { execution, success, failure } = await run(scenario, setting);

					if (scenario.whole) {
						// a refusal before the first write, whatever the setting
						const input = scenario.items(index)[0];
						if (setting === 'stopWorkflow') {
							expect(execution.status).toBe('error');
							expect(execution.data.resultData.error?.message).toMatch(/ refused: /);
						} else {
							expect(execution.status).toBe('success');
							const [refused, ...others] = setting === 'continueErrorOutput' ? failure : success;
							expect(others).toEqual([]);
							expect(pairedTo([refused])).toEqual([0]);
							expect(refused.json).toEqual({
								...(setting === 'continueErrorOutput' ? input : {}),
								error: expect.stringMatching(/ refused: /),
								message: expect.stringMatching(/^Nothing was written/),
							});
							if (setting === 'continueErrorOutput') expect(success).toEqual([]);
						}
						return;
					}
					if (setting === 'stopWorkflow') {
						expect(execution.status).toBe('error');
						// the error says which item: in its message, or as n8n's item index
						const stopped = execution.data.resultData.error as
							{ message?: string; context?: { itemIndex?: number } } | undefined;
						if (stopped?.context?.itemIndex !== 1) expect(stopped?.message).toMatch(/\[item 1\]/);
						expect(success).toEqual([]);
					} else {
						expect(execution.status).toBe('success');
						const errors =
							setting === 'continueErrorOutput'
								? failure
								: success.filter((item) => 'error' in item.json);
						const good =
							setting === 'continueErrorOutput'
								? success
								: success.filter((item) => !('error' in item.json));
						// the bad item, and only it, is an error item: `error` (and `message`) and nothing
						// else, which n8n requires to send it down the error output; there n8n adds the
						// fields of the input item it is paired with
						expect(pairedTo(errors)).toEqual([1]);
						const { error, message, ...rest } = errors[0].json;
						expect(error).toEqual(expect.any(String));
						expect(message === undefined || typeof message === 'string').toBe(true);
						// a Sync's failed row says which row it is by its key
						if (operation === 'sync')
							expect(String(message).split('\n')[0]).toMatch(
								new RegExp(`^Row ${String(scenario.items(index)[1].externalId)}\\b`),
							);
						expect(rest).toEqual(setting === 'continueErrorOutput' ? scenario.items(index)[1] : {});
						// the good items went through, each paired with its own input item
						expect(new Set(pairedTo(good))).toEqual(new Set([0, 2]));
						if (setting === 'continueErrorOutput') {
							expect(success.every((item) => !('error' in item.json))).toBe(true);
						}
					}

					if (scenario.written) {
						const written = scenario.written(sandbox, index);
						if (setting !== 'stopWorkflow') expect(written).toEqual([true, false, true]);
						else if (scenario.failsBeforeSending) expect(written).toEqual([false, false, false]);
						// refused by the service: the first item was written before the second was sent
						else expect(written.slice(0, 2)).toEqual([true, false]);
					}
				},
			);
		},
	);
});
