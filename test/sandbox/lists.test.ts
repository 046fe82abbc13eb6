import type { AxiosResponse } from 'axios';
import {
	expectInvalid,
	newAsset,
	newContract,
	startHarness,
	type Harness,
} from './support/harness';
import type { StoredRecord } from '../../sandbox/store';

describe('list paging', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ records: 250 });
	});
	afterAll(() => h.sandbox.close());

	/** Follows `next` verbatim from the first page; returns every page. */
	async function walk(first: string): Promise<AxiosResponse[]> {
		const pages = [await h.api.get(first)];
		while (pages.at(-1)?.data.next) {
			expect(pages.length).toBeLessThan(100);
			pages.push(await h.api.get(pages.at(-1)?.data.next));
		}
		return pages;
	}
	const idsOf = (pages: AxiosResponse[]) =>
		pages.flatMap((page) => page.data.results.map((record: StoredRecord) => record.id));

	test('pages of 100; next is absolute, also in Link, absent on the last page', async () => {
		const pages = await walk('/api/assets/v1');
		expect(pages.map((page) => page.data.results.length)).toEqual([100, 100, 50]);
		for (const page of pages.slice(0, -1)) {
			expect(page.data.next).toMatch(
				new RegExp(`^${h.sandbox.url}/api/assets/v1\\?after=[A-Za-z0-9_-]+$`),
			);
			expect(page.headers.link).toBe(`<${page.data.next}>; rel="next"`);
		}
		const last = pages.at(-1) as AxiosResponse;
		expect(Object.keys(last.data)).toEqual(['results']);
		expect(last.headers.link).toBeUndefined();
		expect(idsOf(pages)).toEqual(h.sandbox.store.assets.all().map((asset) => asset.id));
	});

	test('ids ascend across pages', async () => {
		const ids = idsOf(await walk('/api/assets/v1?limit=30'));
		expect([...ids].sort()).toEqual(ids);
		expect(new Set(ids).size).toBe(ids.length);
	});

	test('next carries every original parameter, so the filter is not re-sent', async () => {
		const first = '/api/assets/v1?filter=status%20eq%20%22Deployed%22&limit=7&q=e&custom=kept';
		const pages = await walk(first);
		const next = new URL(pages[0].data.next);
		expect(next.searchParams.get('filter')).toBe('status eq "Deployed"');
		expect(next.searchParams.get('limit')).toBe('7');
		expect(next.searchParams.get('q')).toBe('e');
		expect(next.searchParams.get('custom')).toBe('kept');
		const expected = h.sandbox.store.assets
			.all()
			.filter(
				(asset) =>
					asset.status === 'Deployed' &&
					JSON.stringify(searchTexts(asset)).toLowerCase().includes('e'),
			)
			.map((asset) => asset.id);
		expect(idsOf(pages)).toEqual(expected);
		expect(pages.length).toBe(Math.ceil(expected.length / 7));
	});

	test('a page that ends exactly at the last match has no next', async () => {
		const retired = h.sandbox.store.assets
			.all()
			.filter((asset) => asset.status === 'Retired').length;
		const pages = await walk(
			`/api/assets/v1?limit=${retired}&filter=${encodeURIComponent('status eq "Retired"')}`,
		);
		expect(pages).toHaveLength(1);
		expect(pages[0].data.results).toHaveLength(retired);
		expect(pages[0].data).not.toHaveProperty('next');
	});

	test('next is built from the Host header and X-Forwarded-Proto', async () => {
		const response = await h.api.get('/api/assets/v1?limit=1', {
			headers: { Host: 'stockroom.example:8443', 'X-Forwarded-Proto': 'https' },
		});
		expect(response.data.next).toMatch(
			/^https:\/\/stockroom\.example:8443\/api\/assets\/v1\?limit=1&after=/,
		);
	});

	test('limit above 1000 is clamped to 1000', async () => {
		const local = await startHarness({ records: 1200 });
		try {
			const response = await local.api.get('/api/assets/v1?limit=5000');
			expect(response.data.results).toHaveLength(1000);
			expect(new URL(response.data.next).searchParams.get('limit')).toBe('5000');
			expect((await local.api.get(response.data.next)).data.results).toHaveLength(200);
		} finally {
			await local.sandbox.close();
		}
	});

	test.each([['0'], ['-1'], ['1.5'], ['ten'], ['']])(
		'limit=%j: 400 naming limit',
		async (limit) => {
			expectInvalid(await h.api.get(`/api/assets/v1?limit=${limit}`), ['limit']);
		},
	);

	test.each([['zzz!'], ['bm90LWFuLWlk'], ['AAAA']])(
		'a malformed after (%s): 400 naming after',
		async (after) => {
			expectInvalid(await h.api.get(`/api/assets/v1?after=${after}`), ['after']);
		},
	);

	test('a cursor still works after its record is deleted', async () => {
		const first = await h.api.get('/api/assets/v1?limit=10');
		const lastId = first.data.results[9].id;
		h.sandbox.store.assets.delete(lastId);
		const second = await h.api.get(first.data.next);
		expect(second.data.results[0].id).toBe(h.sandbox.store.assets.all()[9].id);
	});

	test('with a cursor lifetime, a next link followed too late is a 400 naming after; a fresh one works', async () => {
		let now = Date.now();
		h.sandbox.setClock(() => new Date(now));
		h.sandbox.setCursorTtl(300);
		try {
			const first = await h.api.get('/api/assets/v1?limit=10');
			now += 300_000; // still within its lifetime
			expect((await h.api.get(first.data.next)).status).toBe(200);
			now += 1;
			const expired = await h.api.get(first.data.next);
			expectInvalid(expired, ['after']);
			expect(expired.data.errors.after[0]).toMatch(/expired/);
			const again = await h.api.get('/api/assets/v1?limit=10');
			expect((await h.api.get(again.data.next)).status).toBe(200);
		} finally {
			h.sandbox.setCursorTtl(undefined);
			h.sandbox.setClock(() => new Date());
		}
	});

	test('records created while paging show up on a later page', async () => {
		const first = await h.api.get('/api/assets/v1?limit=100');
		const created = (await h.api.put('/api/assets/v1', newAsset('created-while-paging'))).data;
		const ids = idsOf([first, ...(await walk(first.data.next))]);
		expect(ids.at(-1)).toBe(created.id);
	});

	test('contracts page the same way', async () => {
		const pages = await walk('/api/contracts/v1?limit=20');
		expect(idsOf(pages)).toEqual(h.sandbox.store.contracts.all().map((contract) => contract.id));
		expect(pages).toHaveLength(Math.ceil(h.sandbox.store.contracts.size / 20));
	});
});

const searchTexts = (asset: StoredRecord) =>
	[
		asset.deviceName,
		asset.externalId,
		asset.serialNumber,
		asset.assetTag,
		asset.hardwareVendor,
		asset.assetType,
		asset.notes,
		asset.assignedToEmail,
		asset.platform,
	].filter(Boolean);

describe('q, since and until', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const externalIds = (response: AxiosResponse) =>
		response.data.results.map((record: StoredRecord) => record.externalId);

	test('q is case-insensitive free text over the asset text fields', async () => {
		await h.api.put('/api/assets/v1', newAsset('q-1', { serialNumber: 'ZX-Needle-01' }));
		await h.api.put('/api/assets/v1', newAsset('q-2', { notes: 'has a NEEDLE inside' }));
		await h.api.put('/api/assets/v1', newAsset('q-3', { osVersion: 'needle' }));
		expect(externalIds(await h.api.get('/api/assets/v1?q=needle'))).toEqual(['q-1', 'q-2']);
	});

	test('q on contracts also searches line item descriptions', async () => {
		await h.api.put(
			'/api/contracts/v1',
			newContract('q-c1', { lineItems: [{ description: 'Quokka Seats' }] }),
		);
		await h.api.put('/api/contracts/v1', newContract('q-c2', { ref: 'QUOKKA-7' }));
		expect(externalIds(await h.api.get('/api/contracts/v1?q=quokka'))).toEqual(['q-c1', 'q-c2']);
	});

	test('since and until are inclusive bounds on lastModifiedDtm', async () => {
		const times = [
			'2031-01-01T10:00:00.000Z',
			'2031-01-01T11:00:00.000Z',
			'2031-01-01T12:00:00.000Z',
		];
		for (const [index, time] of times.entries()) {
			h.sandbox.setClock(() => new Date(time));
			await h.api.put('/api/assets/v1', newAsset(`window-${index}`));
		}
		h.sandbox.setClock(() => new Date());
		const list = async (query: string) => externalIds(await h.api.get(`/api/assets/v1?${query}`));
		expect(await list(`since=${times[1]}`)).toEqual(['window-1', 'window-2']);
		expect(await list(`since=2031-01-01T11:00:00Z&until=2031-01-01T11:00:00Z`)).toEqual([
			'window-1',
		]);
		expect(await list(`since=2031-01-01T12:30:00%2B02:00`)).toEqual(['window-1', 'window-2']);
		expect((await list(`until=${times[0]}`)).slice(-1)).toEqual(['window-0']);
		expect(await list('since=2031-01-02')).toEqual([]);
	});

	test.each([
		['since', 'yesterday'],
		['until', '2024-02-30T00:00:00Z'],
		['since', '2024-01-01T25:00:00Z'],
	])('%s=%s: 400 naming the parameter', async (name, value) => {
		expectInvalid(await h.api.get(`/api/assets/v1?${name}=${value}`), [name]);
	});
});
