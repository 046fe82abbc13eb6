import type { IDataObject } from 'n8n-workflow';
import { runInThisContext } from 'node:vm';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { createGateway, type Gateway } from '../helpers/gateway';
import { runNode, sandboxCredential } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';
import * as listBody from '../../nodes/shared/transport/listBody';

/**
 * The edges of pipelined paging: a page asked for ahead is never left behind (no unhandled
 * rejection, no request or retry going on after the node stopped), a cancelled execution stops
 * waiting, attempts are counted across a page read twice; One Item per Page counts whole pages.
 */

const node = new StockroomAsset();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('paging without loose ends', () => {
	let sandbox: Sandbox;
	const apiCalls = () => sandbox.journal().filter((call) => call.path.startsWith('/api/'));
	const byHundreds = (options: IDataObject = {}) => ({
		operation: 'getAll',
		returnAll: true,
		options: { pageSize: 100, ...options },
	});

	beforeAll(async () => {
		// pages of 100 on an 8 Mbit/s link take about 100 ms to arrive: a page asked for ahead is
		// under way while the current one is read
		sandbox = await createSandbox({
			records: 1_000,
			network: { bandwidthMbit: 8, compression: false },
		});
	});
	afterAll(async () => {
		await sandbox.close();
	});
	beforeEach(async () => {
		sandbox.setFaults('');
		// the token first: the faults below count API calls only
		await runNode(node, { parameters: { operation: 'getAll', limit: 1 }, credential });
		sandbox.resetStats();
	});
	let credential: ReturnType<typeof sandboxCredential>;
	beforeAll(() => {
		credential = sandboxCredential(sandbox);
	});

	test('a page asked for ahead that fails while the current page is read is no unhandled rejection', async () => {
		// the process's own events (jest's `process` is a copy of it for the test's context)
		const realProcess = runInThisContext('process') as NodeJS.Process;
		const unhandled: unknown[] = [];
		const onUnhandled = (reason: unknown) => unhandled.push(reason);
		realProcess.on('unhandledRejection', onUnhandled);
		try {
			// page 2, asked for ahead, loses its connection at once (Max Attempts 1: no retry) while
			// page 1 is still arriving
			sandbox.failNext(1, 'reset', 1);
			const error = await failureOf(
				runNode(node, { parameters: byHundreds({ maxAttempts: 1 }), credential }),
			);
			expect(error.message).toMatch(/^Could not list assets: the connection failed \(ECONNRESET\)/);
			expect(apiCalls().map((call) => call.query.after === undefined)).toEqual([true, false]);
			await pause(50);
			expect(unhandled).toEqual([]);
		} finally {
			realProcess.off('unhandledRejection', onUnhandled);
		}
	});

	test('when the current page fails for good, the page asked for ahead is abandoned: no request and no retry after the node stopped', async () => {
		// page 1 is cut short twice (Max Attempts 2); page 2, asked for ahead, never answers
		sandbox.failNext(1, 'truncated');
		sandbox.failNext(1, 'hang');
		sandbox.failNext(1, 'truncated');
		const started = Date.now();
		const error = await failureOf(
			runNode(node, {
				parameters: byHundreds({ maxAttempts: 2, timeoutSeconds: 1 }),
				credential,
			}),
		);
		expect(error.message).toMatch(/^Could not list assets: the answer is not the service's/);
		expect(Date.now() - started).toBeLessThan(1_000);
		// the request for page 2 was closed when the node gave it up, long before its timeout
		await pause(100);
		expect(sandbox.stats().inFlight).toBe(0);
		// the hanging request was closed, and its retry (after its 1 s timeout) never sent
		await pause(2_500);
		expect(apiCalls().map((call) => call.query.after === undefined)).toEqual([true, false, true]);
		expect(sandbox.stats().maxInFlight).toBeLessThanOrEqual(2);
	});

	test('a limit reached leaves no page asked for ahead behind', async () => {
		const [items] = await runNode(node, {
			parameters: { operation: 'getAll', returnAll: false, limit: 250, options: { pageSize: 100 } },
			credential,
		});
		expect(items).toHaveLength(250);
		await pause(300);
		expect(apiCalls()).toHaveLength(3);
	});

	test('pages with fewer records than the limit, or none, and a next link are read on: every record once, in order', async () => {
		sandbox.setFaults('empty:0.3,short:0.3');
		const [items] = await runNode(node, { parameters: byHundreds(), credential });
		sandbox.setFaults('');
		expect(apiCalls().filter((call) => call.fault === 'empty')).not.toEqual([]);
		expect(apiCalls().filter((call) => call.fault === 'short')).not.toEqual([]);
		expect(items.map((item) => item.json.id)).toEqual(
			sandbox.store.assets.all().map((record) => record.id),
		);
	});

	test('a last page that says "next": null is the last page', async () => {
		sandbox.setFaults('null-next:1');
		const [items] = await runNode(node, { parameters: byHundreds(), credential });
		sandbox.setFaults('');
		expect(items).toHaveLength(sandbox.store.assets.size);
		expect(apiCalls()).toHaveLength(10);
	});

	test('a cancelled execution ends the retry wait at once and sends nothing more', async () => {
		// every call is answered 429 with Retry-After: 1 (second)
		sandbox.setFaults('429:1');
		const cancel = new AbortController();
		const run = failureOf(
			runNode(node, {
				parameters: byHundreds({ maxAttempts: 10, maxRetryWaitSeconds: 120 }),
				credential,
				cancelSignal: cancel.signal,
			}),
		);
		while (apiCalls()[0]?.status !== 429) await pause(10);
		const cancelledAt = Date.now();
		cancel.abort();
		await run;
		expect(Date.now() - cancelledAt).toBeLessThan(300);
		await pause(1_500);
		expect(apiCalls()).toHaveLength(1);
	});

	test('"Tried N times" counts every request for the page, the one whose body was cut included', async () => {
		// page 1: its body is cut, then it never answers (Max Attempts 3)
		sandbox.failNext(1, 'cut');
		sandbox.failNext(2, 'hang');
		const error = await failureOf(
			runNode(node, {
				parameters: {
					operation: 'getAll',
					limit: 50,
					options: { maxAttempts: 3, timeoutSeconds: 1 },
				},
				credential,
			}),
		);
		expect(error.message).toMatch(/^Could not list assets: the service did not answer within 1 s/);
		expect(error.description).toMatch(/Tried 3 times\.$/);
		expect(apiCalls()).toHaveLength(3);
	});

	test('a walk reads all its pages into one buffer, while the page ahead arrives; two walks at once each into their own', async () => {
		// a page's bytes in a new buffer each time made V8 run full collections (issue 26)
		const parse = jest.spyOn(listBody, 'parseListBody');
		let walks: Array<Array<{ json: IDataObject }>>;
		let pages: ArrayBufferLike[];
		try {
			walks = (
				await Promise.all([
					runNode(node, { parameters: byHundreds(), credential }),
					runNode(node, { parameters: byHundreds(), credential }),
				])
			).map(([items]) => items);
			pages = parse.mock.calls.map(([bytes]) => bytes.buffer);
		} finally {
			parse.mockRestore();
		}
		const stored = sandbox.store.assets.all();
		for (const items of walks) expect(items.map((item) => item.json)).toEqual(stored);
		expect(pages).toHaveLength(20);
		expect(new Set(pages).size).toBe(2);
	});
});

describe('One Item per Page counts whole pages', () => {
	let sandbox: Sandbox;
	let gateway: Gateway;
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 120 });
		gateway = await createGateway(sandbox, '/stockroom');
	});
	afterAll(async () => {
		await gateway.close();
		await sandbox.close();
	});
	beforeEach(() => sandbox.resetStats());
	const listCalls = () =>
		sandbox.journal().filter((call) => call.method === 'GET' && call.path === '/api/assets/v1');
	const storedIds = () => sandbox.store.assets.all().map((record) => record.id);

	const pages = async (baseUrl: string, limit: number, options: IDataObject) => {
		const [items] = await runNode(node, {
			parameters: {
				operation: 'getAll',
				returnAll: false,
				limit,
				options: { output: 'pages', ...options },
			},
			credential: sandboxCredential(sandbox, { baseUrl }),
		});
		return items.map(({ json }) => json as { records: IDataObject[]; count: number; next: string });
	};

	test('Limit rounds up to whole pages of the page size asked for', async () => {
		const read = await pages(sandbox.url, 25, { pageSize: 10 });
		expect(read.map((page) => page.count)).toEqual([10, 10, 10]);
		expect(read.flatMap((page) => page.records.map((record) => record.id))).toEqual(
			storedIds().slice(0, 30),
		);
	});

	test('with Start From, pages are the size of the link (not the Page Size option), none cut, through a gateway with a path', async () => {
		const [first] = await pages(gateway.url, 10, { pageSize: 10 });
		expect(first.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/stockroom\/api\/assets\/v1\?/);
		sandbox.resetStats();
		// Page Size stays at its default (1,000): the link's pages of 10 are what Limit counts
		const read = await pages(gateway.url, 25, { startFrom: first.next });
		expect(read.map((page) => page.count)).toEqual([10, 10, 10]);
		expect(read.flatMap((page) => page.records.map((record) => record.id))).toEqual(
			storedIds().slice(10, 40),
		);
		expect(listCalls()).toHaveLength(3);
		// the last page's link continues exactly after it
		const [after] = await pages(gateway.url, 1, { startFrom: read[2].next });
		expect(after.records[0].id).toBe(storedIds()[40]);
	});

	test('Start From outside the list under the gateway fails naming the option and the expected path', async () => {
		await expect(
			pages(gateway.url, 10, { startFrom: 'http://127.0.0.1:1/api/assets/v1?after=x' }),
		).rejects.toThrow(
			/^Invalid option: Start From expected the next link of an earlier page of assets \(\/stockroom\/api\/assets\/v1\?\.\.\.\)/,
		);
	});
});
