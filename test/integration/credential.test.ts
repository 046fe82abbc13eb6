import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { captureWarnings, runNode, runPoll, sandboxCredential } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';
import { newAsset } from '../sandbox/support/harness';

/**
 * Issue 41: a run reads its credential once and sends the token n8n stored in it; n8n still
 * fetches, renews and stores the token (its own code, n8n-core's, runs here over HTTP).
 */
const assetNode = new StockroomAsset();
const ROWS = 300;

const rows = (prefix: string, count = ROWS) =>
	Array.from({ length: count }, (_, index) => newAsset(`${prefix}-${index}`) as IDataObject);

describe('the credential, read once per run', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await createSandbox({
			records: 50,
			clients: [
				{ id: 'revoked-app', secret: 'revoked-secret', scopes: ['Assets.Read', 'Assets.Write'] },
			],
		});
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});
	const journal = (path: string) => sandbox.journal().filter((entry) => entry.path === path);
	const puts = () => sandbox.journal().filter((entry) => entry.method === 'PUT');
	const upsert = (credential: ReturnType<typeof sandboxCredential>, input: IDataObject[]) =>
		runNode(assetNode, {
			parameters: { operation: 'upsert', inputMode: 'json' } as never,
			credential,
			input,
		});
	/** Each External ID was written by exactly one PUT the service accepted. */
	const writtenOnce = (prefix: string) => {
		const accepted = puts().filter((entry) => entry.status === 200 || entry.status === 201);
		const keys = accepted.map((entry) => (entry.body as IDataObject).externalId);
		expect(new Set(keys).size).toBe(keys.length);
		for (let index = 0; index < ROWS; index++) {
			expect(sandbox.store.assets.findByExternalId(`${prefix}-${index}`)).toBeDefined();
		}
		return accepted.length;
	};

	test(`${ROWS} writes read the credential once and send the stored token: no token request, every write accepted`, async () => {
		const credential = sandboxCredential(sandbox);
		await upsert(credential, rows('warm', 1));
		credential.reads = 0;
		sandbox.resetStats();
		const [items] = await upsert(credential, rows('once'));
		expect(items).toHaveLength(ROWS);
		expect(credential.reads).toBe(1);
		expect(journal('/connect/token')).toEqual([]);
		expect(writtenOnce('once')).toBe(ROWS);
		expect(sandbox.stats().maxInFlight).toBeLessThanOrEqual(8);
	});

	test('a credential never used: the first write goes through n8n, which fetches one token; the rest wait for it and use it', async () => {
		const credential = sandboxCredential(sandbox);
		const [items] = await upsert(credential, rows('first'));
		expect(items).toHaveLength(ROWS);
		expect(journal('/connect/token')).toHaveLength(1);
		expect(credential.oauthTokenData).toMatchObject({ token_type: 'Bearer' });
		// the read of the run, n8n's own read on its path, and the read of the token it stored
		expect(credential.reads).toBe(3);
		expect(puts().every((entry) => entry.status !== 401)).toBe(true);
	});

	test('the token expires mid-run with 8 writes in flight: renewed once, n8n stores it, every row written once', async () => {
		const credential = sandboxCredential(sandbox);
		await upsert(credential, rows('warm', 1));
		const before = credential.oauthTokenData?.access_token;
		credential.reads = 0;
		sandbox.resetStats();
		sandbox.expireTokens(100);
		const [items] = await upsert(credential, rows('expiring'));
		expect(items).toHaveLength(ROWS);
		expect(journal('/connect/token').map((entry) => entry.status)).toEqual([200]);
		// only the writes in flight when it expired met it, each sent once more
		const refused = puts().filter((entry) => entry.status === 401);
		expect(refused.length).toBeGreaterThanOrEqual(1);
		expect(refused.length).toBeLessThanOrEqual(8);
		expect(writtenOnce('expiring')).toBe(ROWS);
		expect(puts()).toHaveLength(ROWS + refused.length);
		expect(sandbox.stats().maxInFlight).toBeLessThanOrEqual(8);
		// n8n stored the renewed token in the credential, for other runs and workers
		expect(credential.oauthTokenData?.access_token).not.toBe(before);
		// the run's read, the one that found the token refused, and n8n's own in renewing it
		expect(credential.reads).toBe(3);
	});

	test('a token another run or worker renewed meanwhile is read from the credential: no second renewal', async () => {
		const credential = sandboxCredential(sandbox);
		await upsert(credential, rows('warm', 1));
		sandbox.expireTokens();
		sandbox.resetStats();
		// right after this run reads the credential, another process stores a renewed token in it
		const renewed = { ...credential.oauthTokenData!, access_token: sandbox.token() };
		credential.afterRead = () => {
			credential.afterRead = undefined;
			credential.oauthTokenData = renewed;
		};
		const [items] = await upsert(credential, rows('late', 1));
		expect(items).toHaveLength(1);
		expect(journal('/connect/token')).toEqual([]);
		// the look-up met the expired token, and was sent again with the one stored meanwhile
		expect(sandbox.journal().map((entry) => `${entry.method} ${entry.status}`)).toEqual([
			'GET 401',
			'GET 200',
			'PUT 200',
		]);
	});

	test('a revoked client app: the run fails saying what to fix, after one token request, and nothing more is sent', async () => {
		const credential = sandboxCredential(sandbox, {
			clientId: 'revoked-app',
			clientSecret: 'revoked-secret',
		});
		await upsert(credential, rows('warm', 1));
		sandbox.resetStats();
		sandbox.revokeClient('revoked-app');
		const error = await failureOf(upsert(credential, rows('revoked', 40)));
		expect(error.message).toMatch(
			/the service rejected the client ID or client secret \(invalid_client\) \[item \d+\]$/,
		);
		expect(error.description).toBe(
			'Open the Stockroom credential and check Client ID and Client Secret.',
		);
		expect(journal('/connect/token').map((entry) => entry.status)).toEqual([400]);
		expect(puts().every((entry) => entry.status === 401)).toBe(true);
		expect(puts().length).toBeLessThanOrEqual(8);
		const text = JSON.stringify(error) + String(error.description);
		expect(text).not.toContain('revoked-secret');
		expect(text).not.toContain(String(credential.oauthTokenData?.access_token));
	});

	test('the trigger and the User node take the same path: one read per poll or run, the stored token', async () => {
		const credential = sandboxCredential(sandbox);
		await upsert(credential, rows('warm', 1));
		credential.reads = 0;
		sandbox.resetStats();
		await runPoll(new StockroomTrigger(), {
			parameters: { resource: 'assets', event: 'assetSynced' },
			credential,
			staticData: {},
		});
		await runNode(new StockroomUser(), {
			parameters: { operation: 'getAll', returnAll: true } as never,
			credential,
		});
		// one read for the poll, one for the User node's run
		expect(credential.reads).toBe(2);
		expect(journal('/connect/token')).toEqual([]);
	});

	test("a Sync's first import notes its progress in n8n's log, each tenth of the writes", async () => {
		const credential = sandboxCredential(sandbox);
		const notes = captureWarnings('info');
		try {
			const [items] = await runNode(assetNode, {
				parameters: {
					operation: 'sync',
					fieldsToSync: ['deviceName', 'status', 'hardwareVendor', 'assetType'],
					filterMode: 'expression',
					filterExpression: 'externalId sw "IMPORT-"',
				} as never,
				credential,
				input: rows('IMPORT', 1000),
			});
			expect(items.filter((item) => item.json.action === 'created')).toHaveLength(1000);
		} finally {
			notes.restore();
		}
		const progress = notes.messages().filter((message) => message.startsWith('Stockroom Sync'));
		expect(progress).toEqual(
			Array.from(
				{ length: 10 },
				(_, tenth) =>
					`Stockroom Sync "Stockroom Asset": ${((tenth + 1) * 100).toLocaleString('en')} of 1,000 writes confirmed by the service`,
			),
		);
	});
});
