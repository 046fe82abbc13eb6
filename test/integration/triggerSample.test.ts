import type { IDataObject } from 'n8n-workflow';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runPoll, sandboxCredential, type CredentialStore } from '../helpers/n8n';

/**
 * "Fetch Test Event" on a fleet: the record with the latest value, whatever the values' order
 * among the records, read in a few small pages instead of every recent record.
 */
const trigger = new StockroomTrigger();
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const FLEET = 20_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('Fetch Test Event finds the latest value on a big fleet', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const now = Date.now();

	beforeAll(async () => {
		sandbox = await createSandbox({ records: FLEET });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => sandbox.resetStats());

	const sample = async (parameters: IDataObject) => {
		const result = await runPoll(trigger, {
			parameters: parameters as never,
			credential,
			staticData: {},
			mode: 'manual',
		});
		return result![0].map((item) => item.json);
	};
	const listCalls = () =>
		sandbox.journal().filter((call) => call.method === 'GET' && call.path.startsWith('/api/'));
	/** Sets each asset's Last Synced At from its position in the list (the service's id order). */
	function syncFleet(at: (index: number) => string | undefined) {
		sandbox.store.assets.all().forEach((asset, index) => {
			sandbox.store.assets.put({ ...asset, lastSyncDtm: at(index) });
		});
	}
	const latestSynced = () =>
		sandbox.store.assets
			.all()
			.reduce((best, asset) =>
				Date.parse(String(asset.lastSyncDtm)) > Date.parse(String(best.lastSyncDtm)) ? asset : best,
			);

	test.each([
		// a fleet sync in id order: each page's largest value is only a little larger
		['rising with the id, all in the last hour', (i: number) => iso(now - 50 * MINUTE + i * 100)],
		['falling with the id', (i: number) => iso(now - i * 97)],
		[
			'scattered over two years, a few ms apart at the top',
			(i: number) => iso(now - ((i * 7919) % FLEET) * 3 * DAY + (i % 3)),
		],
		[
			'one far in the future',
			(i: number) => (i === 12_345 ? '2205-01-01T00:00:00.000Z' : iso(now - i)),
		],
	])('values %s', async (_, at) => {
		syncFleet(at);
		const expected = latestSynced();

		const [found] = await sample({ resource: 'assets', event: 'assetSynced' });

		expect(found).toMatchObject({ id: expected.id, lastSyncDtm: expected.lastSyncDtm });
		// walking the window would read all 20,000 records
		const read = listCalls().reduce((sum, call) => sum + Number(call.query.limit), 0);
		expect(read).toBeLessThanOrEqual(FLEET / 4);
	});

	test('many records share the latest value: one of them', async () => {
		syncFleet((i) => iso(now - (i < 5_000 ? 0 : i)));
		const [found] = await sample({ resource: 'assets', event: 'assetSynced' });
		expect(found.lastSyncDtm).toBe(iso(now));
	});

	test('with a filter, the latest among the matching records only', async () => {
		syncFleet((i) => iso(now - i * 13));
		const deployed = sandbox.store.assets
			.all()
			.filter((asset) => asset.status === 'Deployed')
			.reduce((best, asset) =>
				Date.parse(String(asset.lastSyncDtm)) > Date.parse(String(best.lastSyncDtm)) ? asset : best,
			);
		const [found] = await sample({
			resource: 'assets',
			event: 'assetSynced',
			filterMode: 'expression',
			filterExpression: 'status eq "Deployed"',
		});
		expect(found.id).toBe(deployed.id);
		for (const call of listCalls()) expect(call.query.filter).toMatch(/^status eq "Deployed"/);
	});

	test('contracts by agreement date (whole days), one in the future', async () => {
		const contracts = sandbox.store.contracts.all();
		contracts.forEach((contract, index) => {
			sandbox.store.contracts.put({
				...contract,
				agreementDate: iso(now - ((index * 31) % 900) * DAY).slice(0, 10),
			});
		});
		const future = contracts[contracts.length >> 1];
		sandbox.store.contracts.put({ ...future, agreementDate: iso(now + 40 * DAY).slice(0, 10) });

		const [found] = await sample({ resource: 'contracts', event: 'contractAgreementDated' });

		expect(found).toMatchObject({ id: future.id, agreementDate: iso(now + 40 * DAY).slice(0, 10) });
	});
});
