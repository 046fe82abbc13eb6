import axios from 'axios';
import { parseFaults } from '../../sandbox/faults';
import { createSandbox } from '../../sandbox/server';
import { expectProblem, startHarness, type Harness } from './support/harness';

describe('faults', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterEach(() => h.sandbox.setFaults(''));
	afterAll(() => h.sandbox.close());

	test('429 with Retry-After and a Too Many Requests problem, then normal service', async () => {
		h.sandbox.failNext(2, '429');
		for (let i = 0; i < 2; i++) {
			const response = await h.api.get('/api/assets/v1');
			expectProblem(response, 429, 'Too Many Requests');
			expect(response.headers['retry-after']).toBe('1');
		}
		expect((await h.api.get('/api/assets/v1')).status).toBe(200);
	});

	test.each([['500'], ['502'], ['503'], ['504']] as const)(
		'%s with the server fault body',
		async (kind) => {
			h.sandbox.failNext(1, kind);
			const response = await h.api.get('/api/contracts/v1');
			expect(response.status).toBe(Number(kind));
			expect(response.data).toEqual({ type: 'Exception', message: 'An error has occurred' });
		},
	);

	test('reset drops the connection without an answer', async () => {
		h.sandbox.failNext(1, 'reset');
		await expect(
			axios.get(`${h.sandbox.url}/api/assets/v1`, {
				headers: { Authorization: `Bearer ${h.sandbox.token()}` },
			}),
		).rejects.toMatchObject({
			code: expect.stringMatching(/ECONNRESET|ERR_BAD_RESPONSE|ECONNABORTED/),
		});
		expect((await h.api.get('/api/assets/v1')).status).toBe(200);
	});

	test('cut sends the status, headers and half of the body, then drops the connection', async () => {
		h.sandbox.failNext(1, 'cut');
		const response = await fetch(`${h.sandbox.url}/api/assets/v1?limit=2`, {
			headers: { Authorization: `Bearer ${h.sandbox.token()}`, 'Accept-Encoding': 'identity' },
		});
		expect(response.status).toBe(200);
		expect(response.headers.get('link')).toMatch(/rel="next"/);
		const length = Number(response.headers.get('content-length'));
		const reader = response.body!.getReader();
		let received = 0;
		const failure = await (async () => {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) return undefined;
				received += value.length;
			}
		})().catch((error: Error) => error);
		expect(failure?.message).toMatch(/terminated/);
		expect(received).toBe(Math.floor(length / 2));
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
	});

	test('a cut write has taken effect, though its answer never arrives whole', async () => {
		h.sandbox.failNext(1, 'cut');
		const externalId = `cut-write-${Date.now()}`;
		const sent = fetch(`${h.sandbox.url}/api/assets/v1`, {
			method: 'PUT',
			headers: {
				Authorization: `Bearer ${h.sandbox.token()}`,
				'Content-Type': 'application/json',
			},
			body: JSON.stringify({
				externalId,
				deviceName: 'cut',
				status: 'New',
				hardwareVendor: 'x',
				assetType: 'x',
			}),
		}).then((response) => response.text());
		await expect(sent).rejects.toThrow(/terminated/);
		expect(h.sandbox.store.assets.findByExternalId(externalId)).toBeDefined();
	});

	test('maintenance answers 200 with an HTML page, and the call never reaches the service', async () => {
		const before = h.sandbox.store.assets.size;
		h.sandbox.failNext(1, 'maintenance');
		const response = await fetch(`${h.sandbox.url}/api/assets/v1`, {
			method: 'PUT',
			headers: { Authorization: `Bearer ${h.sandbox.token()}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				externalId: 'm',
				deviceName: 'm',
				status: 'New',
				hardwareVendor: 'x',
			}),
		});
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
		expect(await response.text()).toMatch(/^<!DOCTYPE html>[\s\S]*Down for maintenance/);
		expect(h.sandbox.store.assets.size).toBe(before);
	});

	test("shape answers 200 with JSON that is not the service's", async () => {
		h.sandbox.failNext(1, 'shape');
		const response = await h.api.get('/api/assets/v1');
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toMatch(/^application\/json/);
		expect(response.data).toEqual({ status: 'ok', message: 'Service is up' });
	});

	test('truncated carries the call out and sends half its JSON as a whole answer', async () => {
		h.sandbox.failNext(1, 'truncated');
		const externalId = `truncated-write-${Date.now()}`;
		const response = await fetch(`${h.sandbox.url}/api/assets/v1`, {
			method: 'PUT',
			headers: { Authorization: `Bearer ${h.sandbox.token()}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ externalId, deviceName: 't', status: 'New', hardwareVendor: 'x' }),
		});
		expect(response.status).toBe(200);
		const text = await response.text();
		expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
		expect(text.startsWith('{"id":"')).toBe(true);
		expect(() => JSON.parse(text)).toThrow();
		expect(h.sandbox.store.assets.findByExternalId(externalId)).toBeDefined();
	});

	test('a forced fault can wait for a number of calls to pass first', async () => {
		h.sandbox.failNext(1, '503', 2);
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(503);
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
	});

	test("setFaults('') also drops forced faults that have not happened yet", async () => {
		h.sandbox.failNext(1, '500', 5);
		h.sandbox.setFaults('');
		for (let i = 0; i < 7; i++)
			expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
	});

	test('slow delays, then answers normally', async () => {
		h.sandbox.failNext(1, 'slow');
		const started = Date.now();
		const response = await h.api.get('/api/assets/v1?limit=1');
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
		expect(response.status).toBe(200);
		expect(response.data.results).toHaveLength(1);
	});

	test('a forced fault does not apply a write', async () => {
		const before = h.sandbox.store.assets.size;
		h.sandbox.failNext(1, '503');
		const response = await h.api.put('/api/assets/v1', {
			externalId: 'x',
			deviceName: 'x',
			status: 'New',
			hardwareVendor: 'x',
			assetType: 'x',
		});
		expect(response.status).toBe(503);
		expect(h.sandbox.store.assets.size).toBe(before);
	});

	test('the token endpoint is never faulted', async () => {
		h.sandbox.setFaults('500:1');
		const token = await h.anonymous.post(
			'/connect/token',
			'grant_type=client_credentials&client_id=stockroom-demo&client_secret=stockroom-demo-secret',
		);
		expect(token.status).toBe(200);
		expect((await h.api.get('/api/assets/v1')).status).toBe(500);
	});

	test('faults apply to SCIM and unknown API routes too', async () => {
		h.sandbox.failNext(2, '502');
		expect((await h.api.get('/api/scim/v2/Users')).status).toBe(502);
		expect((await h.api.get('/api/nothing')).status).toBe(502);
	});

	test('random rates follow the seed: the same seed gives the same sequence', async () => {
		const statuses = async (seed: number) => {
			const sandbox = await createSandbox({ seed, faults: '429:0.3,503:0.2' });
			const client = axios.create({
				baseURL: sandbox.url,
				validateStatus: () => true,
				headers: { Authorization: `Bearer ${sandbox.token()}` },
			});
			const result: number[] = [];
			for (let i = 0; i < 40; i++) result.push((await client.get('/api/assets/v1?limit=1')).status);
			await sandbox.close();
			return result;
		};
		const [a, b, c] = [await statuses(11), await statuses(11), await statuses(12)];
		expect(a).toEqual(b);
		expect(a).not.toEqual(c);
		const share = (status: number) => a.filter((value) => value === status).length / a.length;
		expect(share(429)).toBeGreaterThan(0.1);
		expect(share(503)).toBeGreaterThan(0.05);
		expect(share(200)).toBeGreaterThan(0.25);
	});

	test('setFaults with rate 1 fails every API call; an empty spec stops it', async () => {
		h.sandbox.setFaults('504:1');
		expect((await h.api.get('/api/assets/v1')).status).toBe(504);
		h.sandbox.setFaults('');
		expect((await h.api.get('/api/assets/v1')).status).toBe(200);
	});

	test.each([['teapot:0.1'], ['429'], ['429:2'], ['429:-0.1'], ['429:0.6,503:0.6'], ['slow:x']])(
		'invalid spec %j is refused',
		(spec) => {
			expect(() => parseFaults(spec)).toThrow();
			expect(() => h.sandbox.setFaults(spec)).toThrow();
		},
	);

	test('an unknown kind for failNext is refused', () => {
		expect(() => h.sandbox.failNext(1, 'boom' as never)).toThrow(/unknown fault kind/);
	});

	test('parseFaults reads every kind', () => {
		expect(
			parseFaults(
				'429:0.1,500:0.01,502:0.01,503:0.05,504:0.01,reset:0.02,slow:0.1,maintenance:0.01,shape:0.01,truncated:0.01,' +
					'empty:0.01,short:0.01,unordered:0.01,cutoff:0.01,null-next:0.01,dates:0.01',
			),
		).toEqual([
			['429', 0.1],
			['500', 0.01],
			['502', 0.01],
			['503', 0.05],
			['504', 0.01],
			['reset', 0.02],
			['slow', 0.1],
			['maintenance', 0.01],
			['shape', 0.01],
			['truncated', 0.01],
			['empty', 0.01],
			['short', 0.01],
			['unordered', 0.01],
			['cutoff', 0.01],
			['null-next', 0.01],
			['dates', 0.01],
		]);
	});
});

describe('answers a real service or its gateway may give in the service’s own form', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ records: 50 });
	});
	afterEach(() => h.sandbox.setFaults(''));
	afterAll(() => h.sandbox.close());

	const ids = (records: Array<{ id: string }>) => records.map((record) => record.id);
	const allIds = () => h.sandbox.store.assets.all().map((record) => record.id);
	/** A page of the list, by its path or an absolute `next` link, with its `Link` header's target. */
	async function page(target: string) {
		const response = await h.api.get(target);
		expect(response.status).toBe(200);
		const link = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
		return {
			body: response.data as { results: Array<{ id: string }>; next?: string | null },
			link,
		};
	}

	test('empty: no records and a next link to the same page, which then comes whole', async () => {
		const first = await page('/api/assets/v1?limit=10');
		h.sandbox.failNext(1, 'empty');
		const again = await page(first.body.next!);
		expect(again.body).toEqual({ results: [], next: first.body.next });
		expect(again.link).toBe(first.body.next);
		expect(ids((await page(again.body.next!)).body.results)).toEqual(allIds().slice(10, 20));
		// on the first page, the link leaves the cursor out
		h.sandbox.failNext(1, 'empty');
		const empty = await page('/api/assets/v1?limit=10');
		expect(empty.body.results).toEqual([]);
		expect(new URL(empty.body.next!).searchParams.get('after')).toBeNull();
		expect(ids((await page(empty.body.next!)).body.results)).toEqual(allIds().slice(0, 10));
	});

	test('short: half the page, and a next link that goes on right after its last record', async () => {
		h.sandbox.failNext(1, 'short');
		const half = await page('/api/assets/v1?limit=10');
		expect(ids(half.body.results)).toEqual(allIds().slice(0, 5));
		expect(half.link).toBe(half.body.next);
		expect(ids((await page(half.body.next!)).body.results)).toEqual(allIds().slice(5, 15));
	});

	test('unordered: the page in descending id order, its next link unchanged', async () => {
		const plain = await page('/api/assets/v1?limit=10');
		h.sandbox.failNext(1, 'unordered');
		const reversed = await page('/api/assets/v1?limit=10');
		expect(ids(reversed.body.results)).toEqual(allIds().slice(0, 10).reverse());
		expect(reversed.body.next).toBe(plain.body.next);
	});

	test('cutoff: {"results": []} and no next link, where the list goes on', async () => {
		h.sandbox.failNext(1, 'cutoff');
		const response = await h.api.get('/api/assets/v1?limit=10');
		expect(response.data).toEqual({ results: [] });
		expect(response.headers.link).toBeUndefined();
	});

	test('null-next: the last page says "next": null; other pages keep their link', async () => {
		h.sandbox.setFaults('null-next:1');
		const first = await page('/api/assets/v1?limit=30');
		expect(first.body.next).toEqual(expect.stringContaining('after='));
		const last = await page(first.body.next!);
		expect(ids(last.body.results)).toEqual(allIds().slice(30));
		expect(last.body).toHaveProperty('next', null);
		expect(last.link).toBeUndefined();
	});

	test('the list kinds leave any other answer as it is', async () => {
		const id = allIds()[3];
		h.sandbox.setFaults('empty:1');
		const response = await h.api.get(`/api/assets/v1/${id}`);
		h.sandbox.setFaults('');
		expect(response.data).toEqual(h.sandbox.store.assets.get(id));
		expect(h.sandbox.journal().at(-1)).toMatchObject({ fault: 'empty', status: 200 });
	});

	test('dates: every date names the same day and every date-time the same instant, in other ISO 8601 forms', async () => {
		// by service-behaviour.md §4: a date is the calendar day written (whatever offset follows),
		// a date-time the instant written, on the service's clock (UTC) when no zone is written
		const day = (text: string) =>
			/^(\d{4}-\d{2}-\d{2})(T00:00:00(\.000)?([+-]\d{2}:\d{2}|Z)?)?$/.exec(text)?.[1];
		const instant = (text: string) => {
			const match =
				/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3})(?:000)?)?(Z|([+-])(\d{2}):(\d{2}))?$/.exec(
					text,
				);
			if (!match) return undefined;
			const [, y, mo, d, h, mi, s, ms, zone, sign, oh, om] = match;
			const utc = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, Number(ms ?? 0));
			const east = zone && zone !== 'Z' ? (sign === '-' ? -1 : 1) * (+oh * 60 + +om) : 0;
			return utc - east * 60_000;
		};
		const stored = new Map(h.sandbox.store.contracts.all().map((record) => [record.id, record]));
		const dayForms = new Set<string>();
		const zones = new Set<string>();
		h.sandbox.setFaults('dates:1');
		for (let round = 0; round < 4; round++) {
			const { body } = await page('/api/contracts/v1?limit=20');
			for (const contract of body.results as Array<Record<string, unknown> & { id: string }>) {
				const original = stored.get(contract.id)!;
				expect(Object.keys(contract).sort()).toEqual(Object.keys(original).sort());
				expect(day(String(contract.agreementDate))).toBe(
					String(original.agreementDate).slice(0, 10),
				);
				expect(instant(String(contract.lastModifiedDtm))).toBe(
					Date.parse(String(original.lastModifiedDtm)),
				);
				dayForms.add(String(contract.agreementDate).slice(10));
				zones.add(String(contract.lastModifiedDtm).replace(/^[\d-]+T[\d:.]+/, ''));
				const lineItems = contract.lineItems as Array<Record<string, unknown>>;
				(original.lineItems as Array<Record<string, unknown>>).forEach((item, index) => {
					if (typeof item.startDate === 'string')
						expect(day(String(lineItems[index].startDate))).toBe(item.startDate.slice(0, 10));
				});
			}
		}
		// the forms of the issue among them: midnight at an offset, no zone at all
		expect([...dayForms]).toEqual(expect.arrayContaining(['', 'T00:00:00+01:00', 'T00:00:00']));
		expect([...zones].sort()).toEqual(['', '+02:00', '-03:30', 'Z']);
	});
});

describe('mass deletion', () => {
	test('deletes about the share asked for, from all over the id range; the lists and the store agree', async () => {
		const h = await startHarness({ records: 2000 });
		try {
			const before = h.sandbox.store.assets.all().map((record) => record.id);
			const deleted = h.sandbox.massDelete('assets', 0.5);
			expect(deleted.length).toBeGreaterThan(900);
			expect(deleted.length).toBeLessThan(1100);
			// from the first hundred ids to the last hundred
			expect(deleted.some((id) => before.slice(0, 100).includes(id))).toBe(true);
			expect(deleted.some((id) => before.slice(-100).includes(id))).toBe(true);
			const left = before.filter((id) => !deleted.includes(id));
			expect(h.sandbox.store.assets.all().map((record) => record.id)).toEqual(left);
			const listed: string[] = [];
			for (let next: string | undefined = '/api/assets/v1?limit=1000'; next;) {
				const { data }: { data: { results: Array<{ id: string }>; next?: string } } =
					await h.api.get(next);
				listed.push(...data.results.map((record) => record.id));
				next = data.next;
			}
			expect(listed).toEqual(left);
			expect((await h.api.get(`/api/assets/v1/${deleted[0]}`)).status).toBe(404);
		} finally {
			await h.sandbox.close();
		}
	});
});
