import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 41: a first import (every row a new device) that someone stops part-way through can be
 * run again: the devices it created are in scope by then, so the next run creates only the rest,
 * and nothing exists twice.
 */
const node = new StockroomAsset();
const FLEET = 2000;
const PREFIX = 'FLEET-';

const fleet: IDataObject[] = Array.from({ length: FLEET }, (_, n) => ({
	externalId: `${PREFIX}${n}`,
	deviceName: `Laptop ${n}`,
	serialNumber: `SN-F${n}`,
	hardwareVendor: 'Dell',
	status: 'New',
}));

const parameters = {
	operation: 'sync',
	fieldsToSync: ['deviceName', 'serialNumber', 'hardwareVendor', 'status'],
	filterMode: 'expression',
	filterExpression: `externalId sw "${PREFIX}"`,
} as never;

const actions = (items: INodeExecutionData[]) => {
	const counts: Record<string, number> = {};
	for (const { json } of items)
		counts[String(json.action)] = (counts[String(json.action)] ?? 0) + 1;
	return counts;
};

describe('a first import stopped part-way and run again', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		// 2 ms away, so that the stop lands while writes are under way
		sandbox = await createSandbox({ records: 10, network: { latencyMs: 2 } });
	});
	afterAll(() => sandbox.close());

	const imported = () =>
		sandbox.store.assets.all().filter((asset) => String(asset.externalId).startsWith(PREFIX));

	test(`cancelled after a quarter of ${FLEET} creates: the next run creates the rest, each device once; the run after writes nothing`, async () => {
		const credential = sandboxCredential(sandbox);
		const cancel = new AbortController();
		const before = sandbox.store.assets.size;
		const watch = setInterval(() => {
			if (sandbox.store.assets.size - before >= FLEET / 4) cancel.abort();
		}, 2);
		const stopped = await failureOf(
			runNode(node, { parameters, credential, input: fleet, cancelSignal: cancel.signal }),
		).finally(() => clearInterval(watch));
		expect(stopped.message).toMatch(/^The request was abandoned/);
		// the creates in flight when it stopped may still land (the service got them): let them
		await new Promise((resolve) => setTimeout(resolve, 200));
		const first = imported().length;
		expect(first).toBeGreaterThanOrEqual(FLEET / 4);
		expect(first).toBeLessThan(FLEET);

		sandbox.resetStats();
		const [second] = await runNode(node, { parameters, credential, input: fleet });
		expect(actions(second)).toEqual({ created: FLEET - first, unchanged: first });
		const stored = imported();
		expect(stored).toHaveLength(FLEET);
		expect(new Set(stored.map((asset) => asset.externalId)).size).toBe(FLEET);
		for (const row of fleet)
			expect(sandbox.store.assets.findByExternalId(String(row.externalId))).toMatchObject(row);

		sandbox.resetStats();
		const [third] = await runNode(node, { parameters, credential, input: fleet });
		expect(actions(third)).toEqual({ unchanged: FLEET });
		expect(sandbox.journal().filter((entry) => entry.method !== 'GET')).toEqual([]);
	});
});
