import { gunzipSync } from 'node:zlib';
import axios from 'axios';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';

/** A remote service's answers: latency, one link of limited bandwidth, gzip on request. */
describe('network profile', () => {
	const sandboxes: Sandbox[] = [];
	const start = async (network: SandboxOptions['network']) => {
		const sandbox = await createSandbox({ records: 2000, network });
		sandboxes.push(sandbox);
		return sandbox;
	};
	afterAll(async () => {
		for (const sandbox of sandboxes) await sandbox.close();
	});
	/** A page of 1,000 assets as sent, without the client decompressing it. */
	const rawPage = (sandbox: Sandbox, acceptEncoding?: string) =>
		axios.get<Buffer>(`${sandbox.url}/api/assets/v1?limit=1000`, {
			headers: {
				Authorization: `Bearer ${sandbox.token()}`,
				'Accept-Encoding': acceptEncoding ?? 'identity',
			},
			decompress: false,
			responseType: 'arraybuffer',
		});

	test('a body is gzip-compressed when the client accepts gzip, and only then', async () => {
		const sandbox = await start({});
		const plain = await rawPage(sandbox);
		expect(plain.headers['content-encoding']).toBeUndefined();
		const zipped = await rawPage(sandbox, 'br;q=0.9, gzip, deflate');
		expect(zipped.headers['content-encoding']).toBe('gzip');
		expect(zipped.headers.vary).toBe('Accept-Encoding');
		expect(Number(zipped.headers['content-length'])).toBe(zipped.data.length);
		expect(zipped.data.length).toBeLessThan(plain.data.length / 4);
		expect(JSON.parse(gunzipSync(zipped.data).toString())).toEqual(
			JSON.parse(Buffer.from(plain.data).toString()),
		);
		expect((await rawPage(sandbox, 'gzip;q=0')).headers['content-encoding']).toBeUndefined();
	});

	test('a small body (one record) is compressed alike', async () => {
		const sandbox = await start({});
		const [asset] = sandbox.store.assets.all();
		const get = (acceptEncoding: string) =>
			axios.get<Buffer>(`${sandbox.url}/api/assets/v1/${String(asset.id)}`, {
				headers: { Authorization: `Bearer ${sandbox.token()}`, 'Accept-Encoding': acceptEncoding },
				decompress: false,
				responseType: 'arraybuffer',
			});
		const plain = await get('identity');
		expect(plain.data.length).toBeGreaterThan(1024);
		const zipped = await get('gzip');
		expect(zipped.headers['content-encoding']).toBe('gzip');
		expect(Number(zipped.headers['content-length'])).toBe(zipped.data.length);
		expect(JSON.parse(gunzipSync(zipped.data).toString())).toEqual(
			JSON.parse(Buffer.from(plain.data).toString()),
		);
	});

	test('compression off sends every body as it is', async () => {
		const sandbox = await start({ compression: false });
		expect((await rawPage(sandbox, 'gzip')).headers['content-encoding']).toBeUndefined();
	});

	test('latency delays every answer', async () => {
		const sandbox = await start({ latencyMs: 120 });
		const started = performance.now();
		await rawPage(sandbox);
		expect(performance.now() - started).toBeGreaterThanOrEqual(115);
	});

	test('bandwidth is one link that concurrent answers share', async () => {
		const sandbox = await start({ bandwidthMbit: 40, compression: false });
		const one = (await rawPage(sandbox)).data.length;
		// 40 Mbit/s is 5 MB/s: two pages at once take as long as their bytes on one link
		const started = performance.now();
		await Promise.all([rawPage(sandbox), rawPage(sandbox)]);
		const seconds = (performance.now() - started) / 1000;
		expect(seconds).toBeGreaterThanOrEqual((0.9 * (2 * one)) / 5e6);
	});
});
