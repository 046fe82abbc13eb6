import type { AxiosResponse } from 'axios';
import { expectInvalid, newAsset, startHarness, type Harness } from './support/harness';

/** The stored fields these tests read. */
interface Asset {
	id: string;
	hardwareVendor: string;
	status: string;
	assetType: string;
	platform?: string;
	lastSyncDtm?: string;
	netPrice: number;
	isEncrypted?: boolean;
	purchasedDate: string;
	assignedTo?: object;
	customFieldValues?: { memoryGb?: { numberValue: number } };
	customFields?: { memoryGb?: number };
}

interface Contract {
	id: string;
	vendorName: string;
	isAutomaticRenewal?: boolean;
	agreementDate: string;
	documents: unknown[];
	lineItems: Array<{ unitCount?: number; currency?: string; baseAmount?: number }>;
}

describe('filters end to end', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ records: 300, seed: 7 });
	});
	afterAll(() => h.sandbox.close());

	/** Every id the filter selects, following next. */
	async function select(resource: 'assets' | 'contracts', filter: string): Promise<string[]> {
		let response: AxiosResponse = await h.api.get(`/api/${resource}/v1`, {
			params: { filter, limit: 50 },
		});
		expect(response.status).toBe(200);
		const ids = response.data.results.map((record: { id: string }) => record.id);
		while (response.data.next) {
			response = await h.api.get(response.data.next);
			ids.push(...response.data.results.map((record: { id: string }) => record.id));
		}
		return ids;
	}
	const assets = () => h.sandbox.store.assets.all() as unknown as Asset[];
	const contracts = () => h.sandbox.store.contracts.all() as unknown as Contract[];
	const ids = (records: Array<{ id: string }>) => records.map((record) => record.id);
	const memory = (asset: Asset): number | undefined =>
		asset.customFieldValues?.memoryGb?.numberValue ?? asset.customFields?.memoryGb;

	test.each<[string, (asset: Asset) => boolean]>([
		['hardwareVendor co "DELL"', (asset) => asset.hardwareVendor.toLowerCase().includes('dell')],
		['status eq "deployed"', (asset) => asset.status === 'Deployed'],
		[
			'status ne "Deployed" and assetType eq "Laptop"',
			(asset) => asset.status !== 'Deployed' && asset.assetType === 'Laptop',
		],
		[
			'hardwareVendor sw "app" or platform eq "Android"',
			(asset) => asset.hardwareVendor === 'Apple' || asset.platform === 'Android',
		],
		['not (lastSyncDtm pr)', (asset) => asset.lastSyncDtm === undefined],
		[
			'lastSyncDtm ge "2024-06-01"',
			(asset) => asset.lastSyncDtm !== undefined && asset.lastSyncDtm >= '2024-06-01',
		],
		['customFieldValues.memoryGb gt 16', (asset) => (memory(asset) ?? 0) > 16],
		[
			'customFields.memoryGb le 16',
			(asset) => memory(asset) !== undefined && (memory(asset) as number) <= 16,
		],
		['netPrice gt 2000', (asset) => asset.netPrice > 2000],
		['assignedTo.email ew "@northwind.example"', (asset) => asset.assignedTo !== undefined],
		['isEncrypted eq false', (asset) => asset.isEncrypted === false],
		['purchasedDate lt "2023-01-01"', (asset) => asset.purchasedDate < '2023-01-01'],
	])('assets: %s', async (filter, predicate) => {
		const expected = ids(assets().filter(predicate));
		expect(expected.length).toBeGreaterThan(0);
		expect(await select('assets', filter)).toEqual(expected);
	});

	test.each<[string, (contract: Contract) => boolean]>([
		['vendorName sw "micros"', (contract) => contract.vendorName.startsWith('Microsoft')],
		[
			'lineItems[unitCount gt 100]',
			(contract) => contract.lineItems.some((item) => (item.unitCount ?? 0) > 100),
		],
		['isAutomaticRenewal eq false', (contract) => contract.isAutomaticRenewal !== true],
		['isAutomaticRenewal eq true', (contract) => contract.isAutomaticRenewal === true],
		['agreementDate ge "2024-01-01"', (contract) => contract.agreementDate >= '2024-01-01'],
		[
			'lineItems[currency eq "EUR" and baseAmount gt 10000]',
			(contract) =>
				contract.lineItems.some(
					(item) => item.currency === 'EUR' && (item.baseAmount ?? 0) > 10000,
				),
		],
		['not (documents pr)', (contract) => contract.documents.length === 0],
	])('contracts: %s', async (filter, predicate) => {
		const expected = ids(contracts().filter(predicate));
		expect(expected.length).toBeGreaterThan(0);
		expect(await select('contracts', filter)).toEqual(expected);
	});

	test('a filter on a record written through the API', async () => {
		const created = await h.api.put(
			'/api/assets/v1',
			newAsset('filter-me', { customFieldValues: { costCenter: { textValue: 'Zeta-42' } } }),
		);
		expect(await select('assets', 'customFieldValues.costCenter eq "zeta-42"')).toEqual([
			created.data.id,
		]);
	});

	test.each([
		['stauts eq "New"', /column 1: unknown attribute 'stauts' \(did you mean 'status'\?\)/],
		['status eq', /column \d+: .*end of input/],
		['status eq "New" and (', /column \d+/],
		['netPrice gt "cheap"', /column 1: .*number/],
		['hardwareVendor co "unterminated', /column \d+/],
	])('an invalid filter %j: 400 saying where and why', async (filter, reason) => {
		const response = await h.api.get('/api/assets/v1', { params: { filter } });
		expectInvalid(response, ['filter']);
		expect(response.data.errors.filter[0]).toMatch(reason);
		expect(response.data.detail).toContain(response.data.errors.filter[0]);
	});

	test('lineItems[...] is not an asset attribute', async () => {
		expectInvalid(
			await h.api.get('/api/assets/v1', { params: { filter: 'lineItems[unitCount gt 1]' } }),
			['filter'],
		);
	});

	test('External IDs looked up by an or-chain of eq (answered from an index): what a scan selects, case aside, in id order, paged', async () => {
		const chosen = assets().filter((_, index) => index % 5 === 3);
		const externalIds = chosen.map((asset) =>
			String((asset as unknown as { externalId: string }).externalId),
		);
		// upper-cased: text compares case aside; and one that names nothing
		const chain = [...externalIds.map((id) => id.toUpperCase()), 'NO-SUCH-ID']
			.map((id) => `externalId eq "${id}"`)
			.join(' or ');
		expect(chosen.length).toBeGreaterThan(50);
		expect(await select('assets', chain)).toEqual(ids(chosen));
		// the same chain with a clause that is no External ID is scanned: the same answer
		expect(await select('assets', `${chain} or deviceName eq "no such device"`)).toEqual(
			ids(chosen),
		);
	});

	test('an empty filter lists everything', async () => {
		expect((await h.api.get('/api/contracts/v1?filter=&limit=1000')).data.results).toHaveLength(
			h.sandbox.store.contracts.size,
		);
	});
});
