import type { IDataObject, INodeType } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import type { FaultKind } from '../../sandbox/faults';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { createGateway } from '../helpers/gateway';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Answers with status 200 that are not what the service sends (a gateway's maintenance page, JSON
 * cut short, another shape) are failures for every operation of every node: retried like a 5xx,
 * then an error naming the operation, the status, the content type and the body's first
 * characters; never an empty result, never a write reported that the service did not confirm.
 */

const asset = new StockroomAsset();
const contract = new StockroomContract();
const user = new StockroomUser();

interface Case {
	name: string;
	node: INodeType;
	/** What the error says failed. */
	operation: string | RegExp;
	parameters: (sandbox: Sandbox) => IDataObject;
	input?: (sandbox: Sandbox) => IDataObject[];
	/** Whether the operation writes (a maintenance page or another shape means it did not). */
	writes?: boolean;
	/** It creates a record (its id is new each time). */
	creates?: boolean;
	/** Its answer has no body (a DELETE): nothing to cut short. */
	empty?: boolean;
}

const byId = (record: IDataObject) => ({ __rl: true, mode: 'id', value: record.id });
const firstAsset = (sandbox: Sandbox) => sandbox.store.assets.all()[0] as IDataObject;
const firstContract = (sandbox: Sandbox) => sandbox.store.contracts.all()[0] as IDataObject;
const firstUser = (sandbox: Sandbox) => sandbox.store.users.all()[0] as IDataObject;

const CASES: Case[] = [
	{
		name: 'Asset Get Many',
		node: asset,
		operation: 'list assets',
		parameters: () => ({ operation: 'getAll', returnAll: true }),
	},
	{
		name: 'Asset Get Many, one item per page',
		node: asset,
		operation: 'list assets',
		parameters: () => ({ operation: 'getAll', returnAll: true, options: { output: 'pages' } }),
	},
	{
		name: 'Asset Get Many filtered on a custom field',
		node: asset,
		operation: 'read the asset custom field definitions',
		parameters: () => ({
			operation: 'getAll',
			returnAll: true,
			filterMode: 'manual',
			conditions: {
				condition: [{ field: 'customFieldValues.memoryGb', operator: 'gt', value: '8' }],
			},
		}),
	},
	{
		name: 'Asset Get',
		node: asset,
		operation: /^get asset [0-9a-f]{24}$/,
		parameters: (sandbox) => ({ operation: 'get', asset: byId(firstAsset(sandbox)) }),
	},
	{
		name: 'Asset Get by External ID',
		node: asset,
		operation: /^find the asset with External ID ".+"$/,
		parameters: (sandbox) => ({
			operation: 'get',
			asset: { __rl: true, mode: 'externalId', value: firstAsset(sandbox).externalId },
		}),
	},
	{
		name: 'Asset Create or Update (Replace)',
		node: asset,
		operation: 'create or update the asset "ANSWER-1"',
		parameters: () => ({ operation: 'upsert', mode: 'replace', inputMode: 'json' }),
		input: () => [
			{ externalId: 'ANSWER-1', deviceName: 'Answer test', status: 'New', hardwareVendor: 'Dell' },
		],
		writes: true,
		creates: true,
	},
	{
		name: 'Asset Create or Update (Merge), its lookup first',
		node: asset,
		operation: 'look up assets by External ID',
		parameters: (sandbox) => ({
			operation: 'upsert',
			externalId: firstAsset(sandbox).externalId,
			fieldsToSet: { notes: 'merged by the answer test' },
		}),
		writes: true,
	},
	{
		name: 'Asset Update',
		node: asset,
		operation: /^update asset [0-9a-f]{24}$/,
		parameters: (sandbox) => ({
			operation: 'update',
			asset: byId(firstAsset(sandbox)),
			updateFields: { notes: 'changed by the answer test' },
		}),
		writes: true,
	},
	{
		name: 'Asset Delete',
		node: asset,
		operation: /^delete asset [0-9a-f]{24}$/,
		parameters: (sandbox) => ({ operation: 'delete', asset: byId(firstAsset(sandbox)) }),
		writes: true,
		empty: true,
	},
	{
		name: 'Contract Get Many',
		node: contract,
		operation: 'list contracts',
		parameters: () => ({ operation: 'getAll', returnAll: true }),
	},
	{
		name: 'Contract Get',
		node: contract,
		operation: /^get the contract [0-9a-f]{24}$/,
		parameters: (sandbox) => ({ operation: 'get', contract: byId(firstContract(sandbox)) }),
	},
	{
		name: 'Contract Create or Update (Replace)',
		node: contract,
		operation: 'create or update the contract "ANSWER-CT-1"',
		parameters: () => ({
			operation: 'upsert',
			mode: 'replace',
			externalId: 'ANSWER-CT-1',
			ref: 'PO-ANSWER',
			type: 'MSA',
			vendorName: 'Answer Inc',
			agreementDate: '2024-03-01',
		}),
		writes: true,
		creates: true,
	},
	{
		name: 'Contract Create or Update (Merge), its lookup first',
		node: contract,
		operation: 'look up contracts by External ID',
		parameters: (sandbox) => ({
			operation: 'upsert',
			externalId: firstContract(sandbox).externalId,
			fieldsToSet: { notes: 'merged by the answer test' },
		}),
		writes: true,
	},
	{
		name: 'Contract Delete',
		node: contract,
		operation: /^delete the contract [0-9a-f]{24}$/,
		parameters: (sandbox) => ({ operation: 'delete', contract: byId(firstContract(sandbox)) }),
		writes: true,
		empty: true,
	},
	{
		name: 'User Get Many',
		node: user,
		operation: 'list users',
		parameters: () => ({ operation: 'getAll', returnAll: true }),
	},
	{
		name: 'User Get',
		node: user,
		operation: /^get user [0-9a-f]{32}$/,
		parameters: (sandbox) => ({ operation: 'get', user: byId(firstUser(sandbox)) }),
	},
	{
		name: 'User Get by e-mail',
		node: user,
		operation: /^find the user .+@.+$/,
		parameters: (sandbox) => ({
			operation: 'get',
			user: { __rl: true, mode: 'email', value: firstUser(sandbox).userName },
		}),
	},
];

const KINDS: Array<[FaultKind, string, RegExp]> = [
	[
		'maintenance',
		'text/html; charset=utf-8',
		/^<!DOCTYPE html> <html><head><title>Down for maintenance/,
	],
	['shape', 'application/json; charset=utf-8', /^\{"status":"ok","message":"Service is up"\}$/],
	['truncated', 'application/json; charset=utf-8', /^\{"(results|id|schemas|totalResults)"/],
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const source = (pattern: string | RegExp) =>
	typeof pattern === 'string' ? escape(pattern) : pattern.source.replace(/^\^|\$$/g, '');

describe('answers that are not the service’s, for every operation', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const apiCalls = () => sandbox.journal().filter((call) => call.path.startsWith('/api/'));
	const run = (testCase: Case, options: IDataObject = {}) =>
		runNode(testCase.node, {
			parameters: {
				...testCase.parameters(sandbox),
				options: { ...(testCase.parameters(sandbox).options as IDataObject), ...options },
			} as never,
			credential,
			...(testCase.input ? { input: testCase.input(sandbox) } : {}),
		});
	/** What the service holds, to compare before and after. */
	const stored = () => JSON.stringify([sandbox.store.assets.all(), sandbox.store.contracts.all()]);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 60 });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});

	describe.each(KINDS)('a lasting %s answer', (kind, contentType, body) => {
		// an empty answer (a DELETE's) has nothing to cut short: it is the service's, whole
		const cases = CASES.filter((testCase) => kind !== 'truncated' || !testCase.empty);
		test.each(cases.map((testCase) => [testCase.name, testCase] as const))(
			'%s fails naming the operation, the status, the content type and the body, after every attempt',
			async (_, testCase) => {
				await run(CASES[0]); // the token first: the fault is on API calls only
				const before = stored();
				sandbox.resetStats();
				sandbox.setFaults(`${kind}:1`);
				const error = await failureOf(run(testCase, { maxAttempts: 3, maxRetryWaitSeconds: 10 }));
				const [, text] =
					new RegExp(
						`^Could not ${source(testCase.operation)}: the answer is not the service's \\(HTTP 200, ${escape(contentType)}\\): (.*) \\[item 0\\]$`,
					).exec(error.message) ?? [];
				expect({ message: error.message, matched: text !== undefined }).toEqual({
					message: error.message,
					matched: true,
				});
				expect(text).toMatch(body);
				expect(error.description).toMatch(/^Expected .+\. Something between n8n and the service/);
				expect(error.description).toMatch(/ Tried 3 times\.$/);
				expect(apiCalls()).toHaveLength(3);
				// a gateway's answer means the call never reached the service
				if (kind !== 'truncated') expect(stored()).toBe(before);
			},
			30_000,
		);
	});

	test.each(
		CASES.filter((testCase) => testCase.empty).map(
			(testCase) => [testCase.name, testCase] as const,
		),
	)(
		'%s under a lasting truncated fault: the empty answer is whole, and the record gone',
		async (_, testCase) => {
			const { asset: assetTarget, contract: contractTarget } = testCase.parameters(sandbox);
			const { value: id } = (assetTarget ?? contractTarget) as { value: string };
			sandbox.setFaults('truncated:1');
			const [[item]] = await run(testCase);
			expect(item.json).toEqual({ id, deleted: true });
			expect(sandbox.store.assets.get(id) ?? sandbox.store.contracts.get(id)).toBeUndefined();
		},
	);

	describe.each(KINDS)('one %s answer', (kind) => {
		test.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
			'%s: asked again, the result is the one the service gives without it',
			async (_, testCase) => {
				const [expected] = await run(testCase);
				const after = stored();
				sandbox.reset();
				sandbox.resetStats();
				sandbox.failNext(1, kind);
				const [items] = await run(testCase);
				// a record created twice (once per run) has a new id each time
				const comparable = (list: typeof items) =>
					list.map(({ json }) => ({
						...json,
						lastModifiedDtm: undefined,
						createdDtm: undefined,
						...(testCase.creates ? { id: undefined } : {}),
					}));
				expect(comparable(items)).toEqual(comparable(expected));
				if (!testCase.writes) expect(stored()).toBe(after);
			},
			30_000,
		);
	});
});

describe('an answer from a gateway in front of the service', () => {
	let sandbox: Sandbox;
	let gateway: Awaited<ReturnType<typeof createGateway>>;
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 30 });
		gateway = await createGateway(sandbox);
	});
	afterAll(async () => {
		await gateway.close();
		await sandbox.close();
	});

	test('shows no token or secret it echoes', async () => {
		const credential = sandboxCredential(sandbox, { baseUrl: gateway.url });
		await runNode(asset, { parameters: { operation: 'getAll', returnAll: true }, credential });
		const token = String((credential.oauthTokenData as IDataObject).access_token);
		gateway.answerNext(2, {
			status: 200,
			contentType: 'text/plain',
			body: `debug: Authorization: Bearer ${token} client_secret=${sandbox.client.secret}`,
		});
		const error = await failureOf(
			runNode(asset, {
				parameters: { operation: 'getAll', returnAll: true, options: { maxAttempts: 2 } },
				credential,
			}),
		);
		expect(error.message).toBe(
			"Could not list assets: the answer is not the service's (HTTP 200, text/plain): debug: Authorization: Bearer [redacted] client_secret=[redacted] [item 0]",
		);
		const shown = JSON.stringify({ ...error, message: error.message, stack: error.stack });
		expect(shown).not.toContain(token);
		expect(shown).not.toContain(sandbox.client.secret);
	});

	test('a redirect is not followed: nothing is written, the token goes nowhere else, the error says where the service answers', async () => {
		const credential = sandboxCredential(sandbox, { baseUrl: gateway.url });
		await runNode(asset, { parameters: { operation: 'getAll', limit: 1 }, credential });
		const before = sandbox.store.assets.size;
		sandbox.resetStats();
		// the service moved: the gateway sends every call to the sandbox's own address
		const moved = `${sandbox.url}/api/assets/v1`;
		gateway.answerNext(
			1,
			{
				status: 308,
				contentType: 'text/plain',
				body: `Permanent Redirect. Redirecting to ${moved}`,
				headers: { Location: moved },
			},
			1,
		); // the PUT, after the lookup of its External ID
		const error = await failureOf(
			runNode(asset, {
				parameters: { operation: 'upsert', inputMode: 'json' },
				input: [
					{ externalId: 'MOVED-1', deviceName: 'Moved', hardwareVendor: 'Dell', status: 'New' },
				],
				credential,
			}),
		);
		expect(error.message).toBe(
			`Could not create or update the asset "MOVED-1": the service answered HTTP 308, a redirect to ${moved}, which is not followed [item 0]`,
		);
		expect(error.description).toBe(
			`The service answers at ${sandbox.url}: set the credential's Base URL to it.`,
		);
		// followed, the PUT (and its token) would have reached the sandbox's own address
		expect(sandbox.journal().filter((entry) => entry.method === 'PUT')).toEqual([]);
		expect(sandbox.store.assets.findByExternalId('MOVED-1')).toBeUndefined();
		expect(sandbox.store.assets.size).toBe(before);
	});

	test('a redirect with no Location, or one elsewhere, says to set the Base URL', async () => {
		const credential = sandboxCredential(sandbox, { baseUrl: gateway.url });
		await runNode(asset, { parameters: { operation: 'getAll', limit: 1 }, credential });
		gateway.answerNext(1, { status: 302, contentType: 'text/html', body: '' });
		gateway.answerNext(1, {
			status: 302,
			contentType: 'text/html',
			body: '',
			headers: { Location: '/login?next=%2F' },
		});
		const getMany = () =>
			failureOf(runNode(asset, { parameters: { operation: 'getAll', limit: 1 }, credential }));
		const advice =
			"Set the credential's Base URL to the address the service answers at (no redirect in between).";
		const bare = await getMany();
		expect(bare.message).toBe(
			'Could not list assets: the service answered HTTP 302, a redirect with no Location, which is not followed [item 0]',
		);
		expect(bare.description).toBe(advice);
		const login = await getMany();
		expect(login.message).toBe(
			'Could not list assets: the service answered HTTP 302, a redirect to /login?next=%2F, which is not followed [item 0]',
		);
		expect(login.description).toBe(advice);
	});

	test('a 404 page of the gateway is not the service saying the record does not exist', async () => {
		const credential = sandboxCredential(sandbox, { baseUrl: gateway.url });
		const target = sandbox.store.assets.all()[0];
		await runNode(asset, { parameters: { operation: 'getAll', limit: 1 }, credential });
		gateway.answerNext(1, {
			status: 404,
			contentType: 'text/html',
			body: '<h1>404 Not Found</h1>',
		});
		const error = await failureOf(
			runNode(asset, {
				parameters: {
					operation: 'delete',
					asset: { __rl: true, mode: 'id', value: target.id },
					options: { ignoreNotFound: true },
				},
				credential,
			}),
		);
		expect(error.message).toBe(
			`Could not delete asset ${target.id}: the address was not found (HTTP 404), and the answer is not the service's [item 0]`,
		);
		expect(error.description).toContain('The answer (text/html) began: <h1>404 Not Found</h1>');
		expect(sandbox.store.assets.get(target.id)).toBeDefined();
	});
});
