/**
 * On an n8n older than 1.85 (no NodeConnectionTypes in its n8n-workflow), loading a node must say
 * which n8n is needed, with an error n8n passes on as it is (n8n turns a TypeError raised while a
 * node loads into "Class could not be found").
 */
const nodeFiles = [
	['Asset', '../../nodes/StockroomAsset/StockroomAsset.node', 'StockroomAsset'],
	['Contract', '../../nodes/StockroomContract/StockroomContract.node', 'StockroomContract'],
	['User', '../../nodes/StockroomUser/StockroomUser.node', 'StockroomUser'],
	['Trigger', '../../nodes/StockroomTrigger/StockroomTrigger.node', 'StockroomTrigger'],
] as const;

/** What n8n 1.x's directory loader does with a node file (n8n-core's loadClass). */
function loadLikeN8n(file: string, className: string): unknown {
	try {
		const moduleExports = jest.requireActual(file) as Record<string, new () => unknown>;
		return new moduleExports[className]();
	} catch (error) {
		throw error instanceof TypeError
			? new Error('Class could not be found. Please check if the class is named correctly.')
			: error;
	}
}

describe.each(nodeFiles)('the %s node', (_name, file, className) => {
	afterEach(() => {
		jest.dontMock('n8n-workflow');
		jest.resetModules();
	});

	it('loads on an n8n that has NodeConnectionTypes', () => {
		jest.isolateModules(() => {
			const node = loadLikeN8n(file, className) as { description: { inputs: unknown } };
			expect(node.description.inputs).toBeDefined();
		});
	});

	it('names the n8n it needs on an n8n older than 1.85', () => {
		jest.isolateModules(() => {
			jest.doMock('n8n-workflow', () => ({
				...jest.requireActual('n8n-workflow'),
				NodeConnectionTypes: undefined,
			}));
			expect(() => loadLikeN8n(file, className)).toThrow(
				"n8n-nodes-stockroom needs n8n 1.85.0 or later: this n8n's n8n-workflow has no NodeConnectionTypes. Update n8n to use these nodes.",
			);
		});
	});
});
