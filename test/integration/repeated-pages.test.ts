import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { sandboxCredentialInput } from '../../sandbox/credential';
import { CredentialStore, runNode } from '../helpers/n8n';
import { createRecorder, type Recorder } from '../helpers/recorder';

/**
 * Asset and contract lists follow the service's `next` links; a service that does not move on
 * (a cursor it ignores, so that a page comes again) must stop the list with an error, never
 * output its records twice. Checked over real HTTP: the sandbox behind a proxy that answers one
 * page request itself.
 */
describe('a list page that repeats records already output', () => {
	let sandbox: Sandbox;
	let recorder: Recorder;
	let credential: CredentialStore;

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		recorder = await createRecorder(sandbox.url);
		credential = new CredentialStore({ ...sandboxCredentialInput(sandbox), baseUrl: recorder.url });
	});
	afterAll(async () => {
		await recorder?.close();
		await sandbox?.close();
	});
	beforeEach(() => recorder.clear());

	/** A page exactly as the service answers it (its `next` link and all). */
	async function servicePage(path: string): Promise<IDataObject> {
		const response = await fetch(`${sandbox.url}${path}`, {
			headers: { authorization: `Bearer ${sandbox.token()}` },
		});
		return (await response.json()) as IDataObject;
	}

	const getAll = (nodeType: StockroomAsset | StockroomContract) =>
		runNode(nodeType, {
			parameters: {
				operation: 'getAll',
				returnAll: true,
				options: { pageSize: 20 },
			} as INodeParameters,
			credential,
		});

	test.each([
		['assets', new StockroomAsset(), '/api/assets/v1'],
		['contracts', new StockroomContract(), '/api/contracts/v1'],
	] as const)(
		'%s: pages that move on are read whole; the first page again, in answer to the second page’s link, stops the list',
		async (nouns, nodeType, path) => {
			const [whole] = await getAll(nodeType);
			const stored = nouns === 'assets' ? sandbox.store.assets : sandbox.store.contracts;
			expect(whole.map((item) => item.json.id)).toEqual(stored.all().map((record) => record.id));
			recorder.clear();
			const first = await servicePage(`${path}?limit=20`);
			const firstIds = (first.results as IDataObject[]).map((record) => record.id);
			expect(first.next).toEqual(expect.any(String));
			// the second request (the first page's next link) is answered with the first page
			recorder.answerNext(path, { status: 200, body: first }, 1);
			await expect(getAll(nodeType)).rejects.toThrow(
				`Could not list ${nouns}: the service answered the record ${String(firstIds[0])} again on the page after the one that held it [item 0]`,
			);
			const pages = recorder.calls().filter((call) => call.path === path);
			expect(pages.length).toBeLessThanOrEqual(3);
		},
	);

	test('an empty page in between (as the service may send) does not hide a repeat', async () => {
		const first = await servicePage('/api/assets/v1?limit=20');
		const results = first.results as IDataObject[];
		recorder.answerNext(
			'/api/assets/v1',
			{ status: 200, body: { results: [], next: first.next } },
			1,
		);
		recorder.answerNext('/api/assets/v1', { status: 200, body: first });
		await expect(getAll(new StockroomAsset())).rejects.toThrow(
			`Could not list assets: the service answered the record ${String(results[0].id)} again on the page after the one that held it [item 0]`,
		);
	});

	test('a page that holds one record twice stops the list', async () => {
		const first = await servicePage('/api/assets/v1?limit=20');
		const results = first.results as IDataObject[];
		recorder.answerNext('/api/assets/v1', {
			status: 200,
			body: { ...first, results: [...results.slice(0, 10), results[3], ...results.slice(10)] },
		});
		await expect(getAll(new StockroomAsset())).rejects.toThrow(
			`Could not list assets: the service answered the record ${String(results[3].id)} twice on one page [item 0]`,
		);
	});
});
