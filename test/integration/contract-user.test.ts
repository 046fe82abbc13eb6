import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runListSearch, runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';

const contracts = new StockroomContract();
const users = new StockroomUser();
const required = {
	externalId: 'CT-1',
	ref: 'PO-1',
	type: 'MSA',
	vendorName: 'Agilebits Inc',
	agreementDate: '2024-03-01T00:00:00',
};

describe('Stockroom Contract and User nodes against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	// Create or Update here is version 1's (always Replace), as saved workflows have it: these
	// tests prove it unchanged; version 2's Merge has its own suite (upsert-merge.test.ts)
	const runContract = (
		parameters: IDataObject,
		extra: { input?: IDataObject[]; continueOnFail?: boolean } = {},
	) =>
		runNode(contracts, {
			parameters: parameters as never,
			credential,
			...(parameters.operation === 'upsert' ? { typeVersion: 1 } : {}),
			...extra,
		});
	const runUser = (parameters: IDataObject) =>
		runNode(users, { parameters: parameters as never, credential });
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 200 });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});

	test('Get Many with contract and line-item conditions compiles to one filter', async () => {
		const [items] = await runContract({
			operation: 'getAll',
			returnAll: true,
			filterMode: 'manual',
			matchType: 'all',
			conditions: { condition: [{ field: 'isAutomaticRenewal', operator: 'isTrue' }] },
			listConditions: {
				condition: [
					{ field: 'unitCount', operator: 'gt', numberValue: 10 },
					{ field: 'currency', operator: 'eq', currencyValue: 'USD' },
				],
			},
			listMatchType: 'all',
		});
		expect(apiCalls()[0].query.filter).toBe(
			'isAutomaticRenewal eq true and lineItems[unitCount gt 10 and currency eq "USD"]',
		);
		const expected = sandbox.store.contracts
			.all()
			.filter(
				(contract) =>
					contract.isAutomaticRenewal === true &&
					(contract.lineItems as IDataObject[]).some(
						(line) => Number(line.unitCount) > 10 && line.currency === 'USD',
					),
			);
		expect(items.map((item) => item.json.id)).toEqual(expected.map((contract) => contract.id));
		expect(items.length).toBeGreaterThan(0);
	});

	test('Create or Update with line items and documents, then the two line-item update rules', async () => {
		const [[created]] = await runContract({
			operation: 'upsert',
			...required,
			additionalFields: {
				renewalDate: '2025-03-01T00:00:00',
				terminationNoticeDays: 30,
				businessOwnerEmail: 'owner@example.com',
			},
			lineItemsUi: {
				values: [
					{
						externalId: 'L-1',
						description: 'Seats',
						additionalFields: { unitCount: 100, amount: 8, currency: 'USD' },
					},
					{ description: 'Onboarding', additionalFields: { amount: 500 } },
					{ description: 'Support' },
				],
			},
			documentsUi: {
				values: [{ linkUrl: 'https://docs.example.com/msa.pdf', description: 'Signed MSA' }],
			},
		});
		expect(apiCalls()[0].body).toEqual({
			...required,
			agreementDate: '2024-03-01',
			renewalDate: '2025-03-01',
			terminationNoticeDays: 30,
			businessOwnerEmail: 'owner@example.com',
			lineItems: [
				{ externalId: 'L-1', description: 'Seats', unitCount: 100, amount: 8, currency: 'USD' },
				{ description: 'Onboarding', amount: 500 },
				{ description: 'Support' },
			],
			documents: [{ linkUrl: 'https://docs.example.com/msa.pdf', description: 'Signed MSA' }],
		});
		expect(created.json.lineItems).toHaveLength(3);
		// rule 1: L-1 updated by its External ID; rule 2: the line items without one are replaced
		const [[updated]] = await runContract({
			operation: 'upsert',
			...required,
			lineItemsUi: {
				values: [
					{
						externalId: 'L-1',
						description: 'Seats',
						additionalFields: { unitCount: 120, amount: 8, currency: 'USD' },
					},
					{ description: 'Premium support' },
				],
			},
		});
		expect(updated.json.id).toBe(created.json.id);
		expect(
			(updated.json.lineItems as IDataObject[]).map((line) => [
				line.externalId,
				line.description,
				line.unitCount,
			]),
		).toEqual([
			['L-1', 'Seats', 120],
			[undefined, 'Premium support', undefined],
		]);
		// documents were not sent: they are kept
		expect(updated.json.documents).toEqual(created.json.documents);
		const [[cleared]] = await runContract({
			operation: 'upsert',
			...required,
			options: { clearLineItems: true },
		});
		expect(cleared.json.lineItems).toEqual([]);
	});

	test('a validation error only the service knows comes back with its field messages and trace ID', async () => {
		const error = await runContract({
			operation: 'upsert',
			...required,
			lineItemsUi: {
				values: [
					{ externalId: 'DUP', description: 'One' },
					{ externalId: 'DUP', description: 'Two' },
				],
			},
		}).catch((caught: Error & { description?: string; httpCode?: string }) => caught);
		expect(error).toBeInstanceOf(Error);
		const failure = error as Error & { description: string; httpCode: string };
		expect(failure.message).toBe(
			'Could not create or update the contract "CT-1": One or more validation errors occurred. [item 0]',
		);
		expect(failure.httpCode).toBe('400');
		expect(failure.description).toMatch(
			/^lineItems\[1\]\.externalId: .+\n\(HTTP 400, trace ID 00-[0-9a-f]{32}-[0-9a-f]{16}-00\)$/,
		);
	});

	test('Get and Delete by ID or External ID', async () => {
		const target = sandbox.store.contracts.all()[5];
		const [[byExternalId]] = await runContract({
			operation: 'get',
			contract: { __rl: true, mode: 'externalId', value: target.externalId },
		});
		expect(byExternalId.json).toEqual(target);
		const [[deleted]] = await runContract({
			operation: 'delete',
			contract: { __rl: true, mode: 'externalId', value: target.externalId },
		});
		expect(deleted.json).toEqual({ externalId: target.externalId, deleted: true });
		expect(apiCalls().at(-1)).toMatchObject({
			method: 'DELETE',
			path: `/api/contracts/v1/${encodeURIComponent(String(target.externalId))}`,
			status: 204,
		});
		await expect(
			runContract({ operation: 'get', contract: { __rl: true, mode: 'id', value: target.id } }),
		).rejects.toThrow('it was not found (HTTP 404)');
		const [[quiet]] = await runContract({
			operation: 'delete',
			contract: { __rl: true, mode: 'id', value: target.id },
			options: { ignoreNotFound: true },
		});
		expect(quiet.json).toEqual({ id: target.id, deleted: false, notFound: true });
	});

	test('an ID is checked like every ID; an External ID with /, ? or # is one path segment; one of dots is refused', async () => {
		await expect(
			runContract({ operation: 'get', contract: { __rl: true, mode: 'id', value: 'PO-1/../x' } }),
		).rejects.toThrow(
			'Contract: "PO-1/../x" is not a contract ID (24 hexadecimal characters); for an External ID choose "By External ID"',
		);
		await expect(
			runContract({
				operation: 'delete',
				contract: { __rl: true, mode: 'externalId', value: '..' },
			}),
		).rejects.toThrow('Contract: the External ID ".." cannot be used in a URL path');
		expect(apiCalls()).toEqual([]);

		const awkward = 'PO/2024?x=1#frag %';
		const target = sandbox.store.contracts.all()[7];
		sandbox.store.contracts.put({ ...target, externalId: awkward });
		const [[found]] = await runContract({
			operation: 'get',
			contract: { __rl: true, mode: 'externalId', value: awkward },
		});
		expect(found.json.id).toBe(target.id);
		expect(apiCalls().map((call) => call.path)).toEqual([
			`/api/contracts/v1/${encodeURIComponent(awkward)}`,
		]);
	});

	test('User Get Many pages with startIndex and count until totalResults', async () => {
		const [items] = await runUser({
			operation: 'getAll',
			returnAll: true,
			options: { pageSize: 20 },
		});
		const all = sandbox.store.users.all();
		expect(items.map((item) => item.json.id)).toEqual(all.map((user) => user.id));
		const calls = apiCalls();
		expect(calls.map((call) => call.query.startIndex)).toEqual(
			Array.from({ length: Math.ceil(all.length / 20) }, (_, i) => String(1 + i * 20)),
		);
		expect(calls.every((call) => call.query.count === '20')).toBe(true);
	});

	test('User Get Many with a SCIM filter, and Get by ID', async () => {
		const someone = sandbox.store.users.all()[7];
		const [items] = await runUser({
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filterMode: 'manual',
			conditions: {
				condition: [
					{ field: 'userName', operator: 'eq', value: String(someone.userName).toUpperCase() },
				],
			},
		});
		expect(apiCalls()[0].query).toMatchObject({
			filter: `userName eq ${JSON.stringify(String(someone.userName).toUpperCase())}`,
			startIndex: '1',
			count: '5',
		});
		expect(items.map((item) => item.json.id)).toEqual([someone.id]);
		const [[user]] = await runUser({
			operation: 'get',
			user: { __rl: true, mode: 'id', value: someone.id },
		});
		expect(user.json).toEqual(someone);
	});

	test('Simplify on Contract and User: the main fields, written out here by hand', async () => {
		const pick = (record: Record<string, unknown>, names: string[]) =>
			Object.fromEntries(
				names.filter((name) => name in record).map((name) => [name, record[name]]),
			);
		const contract = sandbox.store.contracts.all()[4];
		const [[simpleContract]] = await runContract({
			operation: 'get',
			contract: { __rl: true, mode: 'id', value: contract.id },
			simplify: true,
		});
		expect(simpleContract.json).toEqual(
			pick(contract, [
				'id',
				'externalId',
				'ref',
				'type',
				'vendorName',
				'agreementDate',
				'renewalDate',
				'terminationNoticeDays',
				'isAutomaticRenewal',
				'businessOwnerEmail',
				'lastModifiedDtm',
			]),
		);
		const users = sandbox.store.users.all().slice(0, 3);
		const [simpleUsers] = await runUser({ operation: 'getAll', limit: 3, simplify: true });
		expect(simpleUsers.map((item) => item.json)).toEqual(
			users.map((user) => pick(user, ['id', 'userName', 'displayName', 'title', 'active'])),
		);
	});

	test('User Get by e-mail: the person an asset names, found by user name or e-mail; an unknown address fails naming it', async () => {
		const someone = sandbox.store.users.all()[11];
		const upper = String(someone.userName).toUpperCase();
		const [[user]] = await runUser({
			operation: 'get',
			user: { __rl: true, mode: 'email', value: upper },
		});
		expect(user.json).toEqual({ ...someone, matchedBy: 'userName and emails' });
		expect(apiCalls().map((call) => [call.path, call.query.filter])).toEqual([
			[
				'/api/scim/v2/Users',
				`userName eq ${JSON.stringify(upper)} or emails[value eq ${JSON.stringify(upper)}]`,
			],
		]);

		sandbox.resetStats();
		// a quote or backslash in an address stays inside one value
		const odd = 'o"brien\\or"@example.com';
		await expect(
			runUser({ operation: 'get', user: { __rl: true, mode: 'email', value: odd } }),
		).rejects.toThrow(`No user has the e-mail address ${odd}`);
		expect(apiCalls().map((call) => call.query.filter)).toEqual([
			`userName eq ${JSON.stringify(odd)} or emails[value eq ${JSON.stringify(odd)}]`,
		]);

		sandbox.resetStats();
		await expect(
			runUser({ operation: 'get', user: { __rl: true, mode: 'email', value: 'not an address' } }),
		).rejects.toThrow(/User \(By Email\) expected an e-mail address, got "not an address"/);
		expect(apiCalls()).toEqual([]);
	});

	test('the resource locators list records, searched by text', async () => {
		const someone = sandbox.store.users.all()[3];
		const found = await runListSearch(users, 'searchUsers', {
			credential,
			filter: String(someone.name && (someone.name as IDataObject).familyName),
		});
		expect(found.results.map((result) => result.value)).toContain(someone.id);
		const all = sandbox.store.contracts.all();
		const page = await runListSearch(contracts, 'searchContracts', {
			credential,
			filter: String(all[2].ref),
		});
		expect(page.results.map((result) => result.value)).toContain(all[2].id);
		const assets = sandbox.store.assets.all();
		const first = await runListSearch(new StockroomAsset(), 'searchAssets', { credential });
		expect(first.results.map((result) => result.value)).toEqual(
			assets.slice(0, 50).map((asset) => asset.id),
		);
		const second = await runListSearch(new StockroomAsset(), 'searchAssets', {
			credential,
			paginationToken: first.paginationToken,
		});
		expect(second.results.map((result) => result.value)).toEqual(
			assets.slice(50, 100).map((asset) => asset.id),
		);
		expect(second.results[0].name).toBe(
			`${String(assets[50].deviceName)} (${String(assets[50].externalId)})`,
		);
	});
});
