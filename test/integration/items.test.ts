import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * The item loop at its edges: On Error: Stop stops (no write starts after an item failed, and the
 * error says which items were done), and a connection failure keeps this package's message even
 * where n8n would put its own generic text in its place.
 */

const node = new StockroomAsset();
/** Create or Update sends up to this many items at once. */
const CONCURRENCY = 8;

describe('the item loop', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const puts = () => sandbox.journal().filter((call) => call.method === 'PUT');
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 40 });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});

	const row = (index: number): IDataObject => ({
		externalId: `STOP-${index}`,
		deviceName: `Stop test ${index}`,
		status: 'New',
		hardwareVendor: 'Dell',
	});

	test.each([0, 3, 9])(
		'On Error: Stop: after item %i fails at the service, no further write starts, and the error lists the items done',
		async (failing) => {
			const [first, second] = sandbox.store.assets.all();
			const rows = Array.from({ length: 20 }, (_, index) => row(index));
			// one asset's id with another's External ID: the service refuses it (409)
			rows[failing] = {
				...row(failing),
				id: String(first.id),
				externalId: String(second.externalId),
			};
			const error = await failureOf(
				runNode(node, {
					parameters: { operation: 'upsert', mode: 'replace', inputMode: 'json' },
					credential,
					input: rows,
				}),
			);
			expect(error.message).toBe(
				`Could not create or update the asset "${String(second.externalId)}": Conflict [item ${failing}]`,
			);
			// the first item goes alone (it fetches the token); then up to 8 at a time: those under
			// way when the failure came back finish, none starts after it
			expect(puts().length).toBeLessThanOrEqual(Math.max(failing, 1) + CONCURRENCY);
			expect(puts().length).toBeLessThan(rows.length);
			const written = rows
				.map((candidate, index) => ({
					index,
					stored: sandbox.store.assets.findByExternalId(String(candidate.externalId)),
				}))
				.filter(({ index, stored }) => index !== failing && stored !== undefined)
				.map(({ index }) => index);
			const listed = /Items done before the stop \(the service confirmed them\): (.+)\.$/.exec(
				error.description ?? '',
			);
			const expand = (ranges: string) =>
				ranges.split(', ').flatMap((range) => {
					const [from, to = from] = range.split('-').map(Number);
					return Array.from({ length: to - from + 1 }, (_, offset) => from + offset);
				});
			if (written.length) expect(expand(listed?.[1] ?? '')).toEqual(written);
			else expect(error.description).toMatch(/No item was done before the stop\.$/);
		},
	);

	test('a connection failure keeps our message, even when it names an error code n8n knows', async () => {
		await runNode(node, { parameters: { operation: 'getAll', limit: 1 }, credential });
		sandbox.setFaults('reset:1');
		const error = await failureOf(
			runNode(node, {
				parameters: {
					operation: 'upsert',
					mode: 'replace',
					inputMode: 'json',
					options: { maxAttempts: 2 },
				},
				credential,
				input: [{ ...row(1), externalId: 'EPERM-7' }],
			}),
		);
		expect(error.message).toBe(
			`Could not create or update the asset "EPERM-7": the connection failed (ECONNRESET) at ${sandbox.url} [item 0]`,
		);
		expect(error.description).toBe(
			"Check the credential's Base URL and that the service is reachable from n8n. Tried 2 times.",
		);
	});
});
