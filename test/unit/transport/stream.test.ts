import { PassThrough, pipeline, Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { PageBuffer, readBytes, readJson, readText } from '../../../nodes/shared/transport/stream';

/** Lets every pending stream event fire. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('reading a response body', () => {
	test('a whole body, split inside a multi-byte character', async () => {
		const bytes = Buffer.from('{"name":"ünïcødé 😀"}');
		const stream = Readable.from([bytes.subarray(0, 11), bytes.subarray(11)]);
		await expect(readJson(stream)).resolves.toEqual({ name: 'ünïcødé 😀' });
	});

	test('a body is decoded once it is whole, not as it arrives (text decoded on the way outlived the young generation: issue 26)', async () => {
		const decode = jest.spyOn(TextDecoder.prototype, 'decode');
		try {
			const stream = new PassThrough();
			const reading = readText(stream);
			const bytes = Buffer.from('{"name":"ünïcødé"}');
			stream.write(bytes.subarray(0, 11));
			stream.write(bytes.subarray(11));
			await settle();
			expect(decode).not.toHaveBeenCalled();
			stream.end();
			await expect(reading).resolves.toBe('{"name":"ünïcødé"}');
		} finally {
			decode.mockRestore();
		}
	});

	test('a body whose connection dropped before it was read fails instead of waiting for ever', async () => {
		// as axios hands a decompressed body over: the end of a pipeline, which takes its errors
		const source = new PassThrough();
		const stream = pipeline(source, new PassThrough(), () => undefined);
		source.write('{"results":[');
		source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
		await settle();
		await expect(readText(stream)).rejects.toMatchObject({ code: 'ECONNRESET' });
	}, 2000);

	test('a body closed early without an error fails too', async () => {
		const stream = new PassThrough();
		stream.write('{"results":[');
		stream.destroy();
		await settle();
		await expect(readText(stream)).rejects.toMatchObject({ code: 'ECONNRESET' });
	}, 2000);

	test('a compressed body cut mid-way while it is read fails', async () => {
		const source = new PassThrough();
		const body = pipeline(source, createGunzip(), () => undefined);
		const reading = readText(body);
		const gzipped = gzipSync(JSON.stringify({ results: Array(2000).fill({ id: 'x' }) }));
		source.write(gzipped.subarray(0, gzipped.length / 2));
		await settle();
		source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
		await expect(reading).rejects.toBeInstanceOf(Error);
	}, 2000);

	test("pages read into a walk's buffer share its memory, each exactly its own bytes; a longer page grows it", async () => {
		const buffer = new PageBuffer();
		const page = async (text: string) =>
			await readBytes(
				Readable.from([Buffer.from(text.slice(0, 3)), Buffer.from(text.slice(3))]),
				buffer,
			);
		const first = await page('{"results":[1,2,3]}');
		const firstText = Buffer.from(first).toString();
		const second = await page('{"results":[4]}');
		const third = await page('{"results":[5,6,7,8,9,10,11,12,13,14,15]}');
		expect(firstText).toBe('{"results":[1,2,3]}');
		expect(Buffer.from(second).toString()).toBe('{"results":[4]}');
		expect(Buffer.from(third).toString()).toBe('{"results":[5,6,7,8,9,10,11,12,13,14,15]}');
		// the second page took the first one's memory; the third, longer than it, memory of its own
		const fourth = await page('{"results":[16]}');
		expect(second.buffer).toBe(first.buffer);
		expect(third.buffer).not.toBe(second.buffer);
		expect(fourth.buffer).toBe(third.buffer);
		// without a buffer, every body has memory of its own
		const alone = await readBytes(Readable.from([Buffer.from('{}')]));
		expect(alone.buffer).not.toBe(fourth.buffer);
	});
});
