import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
} from 'n8n-workflow';
import { runItems, type Operation } from '../../../nodes/shared/runItems';

const node: INode = {
	id: '1',
	name: 'Stockroom Asset',
	type: 'n8n-nodes-stockroom.stockroomAsset',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** The little of an execution context the item loop uses. */
function contextWith(items: INodeExecutionData[], continueOnFail: boolean): IExecuteFunctions {
	return {
		getInputData: () => items,
		continueOnFail: () => continueOnFail,
		getNode: () => node,
	} as unknown as IExecuteFunctions;
}

/** An operation that records the items it is called with; items listed in `bad` fail to prepare. */
function recording(bad: number[] = []) {
	const executed: unknown[] = [];
	const operation: Operation<number> = {
		description: [],
		prepare: async (i) => {
			if (bad.includes(i)) throw new NodeOperationError(node, `bad item ${i}`);
			return i;
		},
		execute: async (prepared, i) => {
			executed.push([prepared, i]);
			return [{ done: i } as IDataObject];
		},
		concurrency: 4,
	};
	return { operation, executed };
}

describe('the item loop never calls an operation with no item', () => {
	test('no input items: nothing is executed, nothing is output', async () => {
		const { operation, executed } = recording();
		await expect(runItems.call(contextWith([], false), operation)).resolves.toEqual([]);
		expect(executed).toEqual([]);
	});

	test('every item failed to prepare (Continue On Fail): only error items, nothing executed', async () => {
		const { operation, executed } = recording([0, 1]);
		const output = await runItems.call(contextWith([{ json: {} }, { json: {} }], true), operation);
		expect(output.map((item) => item.json.error)).toEqual([
			'bad item 0 [item 0]',
			'bad item 1 [item 1]',
		]);
		expect(executed).toEqual([]);
	});

	test('each prepared item is executed once, with its own index', async () => {
		const { operation, executed } = recording([1]);
		const items = Array.from({ length: 6 }, () => ({ json: {} }));
		const output = await runItems.call(contextWith(items, true), operation);
		expect(executed.sort()).toEqual([
			[0, 0],
			[2, 2],
			[3, 3],
			[4, 4],
			[5, 5],
		]);
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
	});
});
