import axios, { type AxiosInstance } from 'axios';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newAsset } from './support/harness';
import { transpileSandbox } from './support/transpile';

let CLI: string;

const EMPTY_DATA = {
	format: 'stockroom-sandbox',
	assets: [],
	contracts: [],
	users: [],
	customFieldDefinitions: [],
};

const READY_LINE = new RegExp(
	'^Stockroom sandbox listening on (http://127\\.0\\.0\\.1:\\d+) ' +
		'\\(client id: stockroom-demo, client secret: stockroom-demo-secret\\)\n$',
);

interface Running {
	child: ChildProcess;
	url: string;
	api: AxiosInstance;
	stderr: () => string;
}

/** Runs the CLI to completion (for flags that exit at once). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, ...args]);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('exit', (code) => resolve({ code, stdout, stderr }));
	});
}

/** Starts the CLI and waits for its ready line; gets a token through the token endpoint. */
async function start(args: string[]): Promise<Running> {
	const child = spawn(process.execPath, [CLI, '--port', '0', ...args]);
	let stderr = '';
	child.stderr?.on('data', (chunk) => (stderr += chunk));
	const line = await new Promise<string>((resolve, reject) => {
		let stdout = '';
		child.stdout?.on('data', (chunk) => {
			stdout += chunk;
			if (stdout.includes('\n')) resolve(stdout);
		});
		child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
	});
	const match = READY_LINE.exec(line);
	if (!match) throw new Error(`unexpected ready line: ${line}`);
	const token = await axios.post(
		`${match[1]}/connect/token`,
		'grant_type=client_credentials&client_id=stockroom-demo&client_secret=stockroom-demo-secret',
	);
	const api = axios.create({
		baseURL: match[1],
		validateStatus: () => true,
		headers: { Authorization: `Bearer ${token.data.access_token}` },
	});
	return { child, url: match[1], api, stderr: () => stderr };
}

const exited = (child: ChildProcess) =>
	new Promise<number | null>((resolve) =>
		child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code)),
	);

describe('CLI and persistence', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'stockroom-sandbox-'));
		CLI = transpileSandbox(join(dir, 'build'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('--help prints the usage and exits 0', async () => {
		const result = await run(['--help']);
		expect(result.code).toBe(0);
		for (const flag of [
			'--port',
			'--host',
			'--client-id',
			'--client-secret',
			'--records',
			'--seed',
			'--token-ttl',
			'--faults',
			'--data',
			'--latency',
			'--bandwidth',
			'--compression',
		]) {
			expect(result.stdout).toContain(flag);
		}
	});

	test.each([
		[['--bogus']],
		[['--port', 'eighty']],
		[['--port', '70000']],
		[['--records', '-1']],
		[['--token-ttl', '0']],
		[['--faults', 'teapot:0.5']],
		[['--client-id', '']],
		[['--latency', '-5']],
		[['--bandwidth', '0']],
		[['--compression', 'maybe']],
		[['positional']],
	])('bad flags %j: usage on stderr, exit 2', async (args) => {
		const result = await run(args);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain('Usage: npm run sandbox');
		expect(result.stdout).toBe('');
	});

	test('custom client, records and seed flags are used', async () => {
		const child = spawn(process.execPath, [
			CLI,
			'--port',
			'0',
			'--client-id',
			'my-app',
			'--client-secret',
			's3cret',
			'--records',
			'25',
			'--seed',
			'9',
		]);
		const line = await new Promise<string>((resolve) =>
			child.stdout.once('data', (chunk) => resolve(String(chunk))),
		);
		const url = /listening on (\S+) \(client id: my-app, client secret: s3cret\)/.exec(
			line,
		)?.[1] as string;
		const token = await axios.post(`${url}/connect/token`, 'grant_type=client_credentials', {
			auth: { username: 'my-app', password: 's3cret' },
		});
		const list = await axios.get(`${url}/api/assets/v1?limit=1000`, {
			headers: { Authorization: `Bearer ${token.data.access_token}` },
		});
		expect(list.data.results).toHaveLength(25);
		child.kill('SIGINT');
		expect(await exited(child)).toBe(0);
	});

	test('writes survive a clean stop (SIGTERM) and a restart', async () => {
		const file = join(dir, 'clean.json');
		const first = await start(['--data', file, '--records', '10']);
		const created = await first.api.put('/api/assets/v1', newAsset('persist-1', { notes: 'kept' }));
		expect(created.status).toBe(200);
		const contract = await first.api.put('/api/contracts/v1', {
			externalId: 'persist-c',
			ref: 'r',
			type: 'MSA',
			vendorName: 'v',
			agreementDate: '2024-01-01',
			lineItems: [{ description: 'x', amount: 1 }],
		});
		const deleted = (await first.api.get('/api/assets/v1?limit=1')).data.results[0].id;
		expect((await first.api.delete(`/api/assets/v1/${deleted}`)).status).toBe(204);
		first.child.kill('SIGTERM');
		expect(await exited(first.child)).toBe(0);

		const second = await start(['--data', file, '--records', '500']);
		try {
			expect((await second.api.get(`/api/assets/v1/${created.data.id}`)).data).toEqual(
				created.data,
			);
			expect((await second.api.get('/api/contracts/v1/persist-c')).data).toEqual(contract.data);
			expect((await second.api.get(`/api/assets/v1/${deleted}`)).status).toBe(404);
			expect((await second.api.get('/api/assets/v1?limit=1000')).data.results).toHaveLength(10);
		} finally {
			second.child.kill('SIGINT');
			expect(await exited(second.child)).toBe(0);
		}
	});

	test('after a crash, writes older than a second are kept', async () => {
		const file = join(dir, 'crash.json');
		const first = await start(['--data', file]);
		const created = await first.api.put('/api/assets/v1', newAsset('crash-1'));
		await new Promise((resolve) => setTimeout(resolve, 1200));
		first.child.kill('SIGKILL');
		await exited(first.child);
		const second = await start(['--data', file]);
		try {
			expect((await second.api.get(`/api/assets/v1/${created.data.id}`)).status).toBe(200);
		} finally {
			second.child.kill('SIGTERM');
			await exited(second.child);
		}
	});

	test.each([
		['not JSON', '{"format": "stockroom-sandbox", "assets": [', /cannot be read as JSON/],
		['an empty file', '', /cannot be read as JSON/],
		['another JSON document', '{"hello": "world"}', /is not a Stockroom sandbox data file/],
		['a list missing', JSON.stringify({ ...EMPTY_DATA, users: 'none' }), /has no "users" list/],
		[
			'a bad id',
			JSON.stringify({ ...EMPTY_DATA, assets: [{ id: 'x' }] }),
			/asset #1 has no valid id/,
		],
		[
			'two records with one externalId',
			JSON.stringify({
				...EMPTY_DATA,
				contracts: [
					{ id: 'a'.repeat(24), externalId: 'c' },
					{ id: 'b'.repeat(24), externalId: 'c' },
				],
			}),
			/two contracts have the externalId 'c'/,
		],
	])(
		'a corrupt data file (%s) is a clear start-up error and is left untouched',
		async (_name, content, reason) => {
			const file = join(dir, `corrupt-${Math.random().toString(16).slice(2)}.json`);
			writeFileSync(file, content);
			const result = await run(['--port', '0', '--data', file]);
			expect(result.code).toBe(1);
			expect(result.stdout).toBe('');
			expect(result.stderr).toContain(file);
			expect(result.stderr).toMatch(reason);
			expect(readFileSync(file, 'utf8')).toBe(content);
		},
	);

	test('a data file in a missing folder is a start-up error', async () => {
		const result = await run(['--port', '0', '--data', join(dir, 'missing', 'data.json')]);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('could not start');
	});

	test('a port in use is a start-up error', async () => {
		const first = await start([]);
		try {
			const result = await run(['--port', new URL(first.url).port]);
			expect(result.code).toBe(1);
			expect(result.stderr).toContain('EADDRINUSE');
		} finally {
			first.child.kill('SIGTERM');
			await exited(first.child);
		}
	});
});
