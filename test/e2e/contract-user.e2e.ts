import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	locator,
	NODE,
	type CredentialRef,
	type N8nHome,
	type NodeSpec,
	type WorkflowRun,
} from '../../scripts/n8n';

const CONTRACT = {
	externalId: 'E2E-CTR-1',
	ref: 'PO-E2E-0001',
	type: 'MSA',
	vendorName: 'E2E Vendor "Holdings" Ltd',
	agreementDate: '2026-01-15T00:00:00',
};
const DOCUMENTS = [
	{ linkUrl: 'https://docs.example.com/e2e/order-form.pdf', description: 'Signed order form' },
	{ linkUrl: 'https://docs.example.com/e2e/terms.pdf', description: '' },
];

const contract = (name: string, parameters: IDataObject, continueOnFail = false): NodeSpec => ({
	name,
	type: NODE.contract,
	parameters,
	continueOnFail,
});
const user = (name: string, parameters: IDataObject): NodeSpec => ({
	name,
	type: NODE.user,
	parameters,
});
const lineItem = (description: string, externalId: string, extra: IDataObject) => ({
	description,
	externalId,
	additionalFields: extra,
});

function contractWorkflow(credential: CredentialRef, seededId: string) {
	return buildWorkflow('Contract operations', credential, [
		[
			contract('Big EUR line items', {
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				matchType: 'all',
				conditions: { condition: [{ field: 'type', operator: 'ne', typeValue: 'MSA' }] },
				listConditions: {
					condition: [
						{ field: 'unitCount', operator: 'gt', numberValue: 100 },
						{ field: 'currency', operator: 'eq', currencyValue: 'EUR' },
					],
				},
				listMatchType: 'all',
				options: { pageSize: 20 },
			}),
		],
		[
			contract('Create', {
				operation: 'upsert',
				...CONTRACT,
				additionalFields: {
					renewalDate: '2027-01-15T00:00:00',
					terminationNoticeDays: 60,
					isAutomaticRenewal: true,
					paymentMethod: 'Invoice',
				},
				lineItemsUi: {
					values: [
						lineItem('Seats', 'LI-1', { unitCount: 50, amount: 10, currency: 'EUR' }),
						lineItem('Premium support', 'LI-2', { amount: 1200 }),
						lineItem('Onboarding', '', { amount: 500, startDate: '2026-02-01T00:00:00' }),
						lineItem('Training', '', { amount: 300 }),
					],
				},
				documentsUi: { values: DOCUMENTS },
			}),
			// rule 1 for LI-1, LI-2 not sent (removed), rule 2: the line items without an External ID
			// replace the existing ones without one
			contract('Update line items', {
				operation: 'upsert',
				...CONTRACT,
				additionalFields: { renewalDate: '2027-01-15T00:00:00', terminationNoticeDays: 60 },
				lineItemsUi: {
					values: [
						lineItem('Seats', 'LI-1', { unitCount: 80, amount: 10, currency: 'EUR' }),
						lineItem('Onboarding, second wave', '', { amount: 250 }),
					],
				},
			}),
			// only a line item with an External ID: the ones without one stay
			contract('Update one line item', {
				operation: 'upsert',
				...CONTRACT,
				lineItemsUi: {
					values: [lineItem('Seats', 'LI-1', { unitCount: 100, amount: 10, currency: 'EUR' })],
				},
				options: { clearDocuments: true },
			}),
		],
		[
			contract('Get by ID', {
				operation: 'get',
				contract: locator('id', "={{ $('Create').first().json.id }}"),
			}),
			contract('Get by external ID', {
				operation: 'get',
				contract: locator('externalId', CONTRACT.externalId),
			}),
			contract('Find by line item', {
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				conditions: {
					condition: [{ field: 'vendorName', operator: 'eq', value: CONTRACT.vendorName }],
				},
				listConditions: {
					condition: [{ field: 'externalId', operator: 'eq', value: 'LI-1' }],
				},
			}),
		],
		[
			contract('Get seeded', { operation: 'get', contract: locator('list', seededId) }),
			// a record read from the service, written back as it is
			contract('Write back', { operation: 'upsert', inputMode: 'json' }),
		],
		[
			contract('Delete by external ID', {
				operation: 'delete',
				contract: locator('externalId', CONTRACT.externalId),
			}),
			contract('Delete by ID', { operation: 'delete', contract: locator('id', seededId) }),
			contract('Delete again, ignore missing', {
				operation: 'delete',
				contract: locator('externalId', CONTRACT.externalId),
				options: { ignoreNotFound: true },
			}),
			contract('Delete missing', { operation: 'delete', contract: locator('id', seededId) }, true),
		],
	]);
}

function userWorkflow(credential: CredentialRef, userId: string, loginAddress: string) {
	return buildWorkflow('User operations', credential, [
		[user('All users', { operation: 'getAll', returnAll: true, options: { pageSize: 100 } })],
		[user('First 30', { operation: 'getAll', limit: 30, options: { pageSize: 25 } })],
		[
			user('Active engineers', {
				operation: 'getAll',
				returnAll: true,
				filterMode: 'expression',
				filterExpression: 'title co "engineer" and active eq true',
				options: { pageSize: 20 },
			}),
		],
		[
			user('Inactive by builder', {
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				matchType: 'all',
				conditions: {
					condition: [
						{ field: 'active', operator: 'isFalse' },
						{ field: 'emails.value', operator: 'ew', value: '.example' },
					],
				},
			}),
		],
		[
			user('Get user', { operation: 'get', user: locator('id', userId) }),
			user('Get user from list', { operation: 'get', user: locator('list', userId) }),
		],
		// a user whose userName is a directory login: the address is only in emails
		[
			user('Get by e-mail, login user name', {
				operation: 'get',
				user: locator('email', loginAddress),
			}),
		],
	]);
}

describe('Stockroom Contract and User in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let seededContracts: IDataObject[];
	let seeded: IDataObject;
	let run: WorkflowRun;
	let usersWorkflowId: string;
	let loginAddress: string;
	const calls = (method: string, path: string) =>
		sandbox.journal().filter((entry) => entry.method === method && entry.path === path);
	const ids = (items: IDataObject[]) => items.map((item) => item.id);
	const lineItemsOf = (record: IDataObject) =>
		(record.lineItems as IDataObject[]).map(({ externalId, description, unitCount, amount }) => ({
			externalId,
			description,
			unitCount,
			amount,
		}));

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 2500 });
		seededContracts = JSON.parse(JSON.stringify(sandbox.store.contracts.all())) as IDataObject[];
		// a contract with line items with and without an External ID
		seeded = seededContracts.find((record) => {
			const items = record.lineItems as IDataObject[];
			return items.some((item) => item.externalId) && items.some((item) => !item.externalId);
		})!;
		// a user whose userName is a directory login (a UPN, say), not their e-mail address
		const login = sandbox.store.users.all()[222];
		sandbox.store.users.put({ ...login, userName: 'gturing222' });
		loginAddress = String((login.emails as IDataObject[])[0].value);
		home = await createN8nHome();
		const credential = { id: 'stockroomContractE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		const [contractsId, usersId] = await home.importWorkflows([
			contractWorkflow(credential, String(seeded.id)),
			userWorkflow(credential, sandbox.store.users.all()[321].id, loginAddress),
		]);
		usersWorkflowId = usersId;
		run = await home.executeWorkflow(contractsId);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	describe('Contract', () => {
		test('the workflow runs without a node error', () => {
			expect(run.error).toBeUndefined();
			expect(run.nodeErrors).toEqual({});
		});

		test('Get Many with contract and line item conditions: the matching contracts over pages', () => {
			const expected = seededContracts.filter(
				(record) =>
					record.type !== 'MSA' &&
					(record.lineItems as IDataObject[]).some(
						(item) => Number(item.unitCount) > 100 && item.currency === 'EUR',
					),
			);
			expect(expected.length).toBeGreaterThan(20);
			expect(run.outputs['Big EUR line items']).toEqual(expected);
			const sent = calls('GET', '/api/contracts/v1').filter((call) => call.query.limit === '20');
			expect(sent.length).toBe(Math.ceil(expected.length / 20));
			expect(sent[0].query.filter).toBe(
				'not (type eq "MSA") and lineItems[unitCount gt 100 and currency eq "EUR"]',
			);
		});

		test('Create or Update creates the contract with line items and documents', () => {
			expect(run.outputs.Create).toHaveLength(1);
			const [created] = run.outputs.Create;
			expect(created).toMatchObject({
				externalId: 'E2E-CTR-1',
				ref: 'PO-E2E-0001',
				type: 'MSA',
				vendorName: CONTRACT.vendorName,
				agreementDate: '2026-01-15T00:00:00Z',
				renewalDate: '2027-01-15T00:00:00Z',
				terminationNoticeDays: 60,
				isAutomaticRenewal: true,
				paymentMethod: 'Invoice',
				documents: [
					DOCUMENTS[0],
					// an empty description is not sent
					{ linkUrl: DOCUMENTS[1].linkUrl },
				],
			});
			expect(lineItemsOf(created)).toEqual([
				{ externalId: 'LI-1', description: 'Seats', unitCount: 50, amount: 10 },
				{ externalId: 'LI-2', description: 'Premium support', unitCount: undefined, amount: 1200 },
				{ externalId: undefined, description: 'Onboarding', unitCount: undefined, amount: 500 },
				{ externalId: undefined, description: 'Training', unitCount: undefined, amount: 300 },
			]);
			expect((created.lineItems as IDataObject[])[0]).toMatchObject({
				currency: 'EUR',
				baseAmount: 540,
				baseCurrency: 'USD',
			});
			expect((created.lineItems as IDataObject[])[2].startDate).toBe('2026-02-01T00:00:00Z');
		});

		test('an update applies both line item rules and keeps the documents', () => {
			const [created] = run.outputs.Create;
			const [updated] = run.outputs['Update line items'];
			expect(updated).toMatchObject({ id: created.id, createdDtm: created.createdDtm });
			expect(lineItemsOf(updated)).toEqual([
				{ externalId: 'LI-1', description: 'Seats', unitCount: 80, amount: 10 },
				{
					externalId: undefined,
					description: 'Onboarding, second wave',
					unitCount: undefined,
					amount: 250,
				},
			]);
			expect(updated.documents).toEqual(created.documents);
			// a PUT replaces the contract's own fields
			expect(updated).not.toHaveProperty('paymentMethod');
			expect(updated).not.toHaveProperty('isAutomaticRenewal');
		});

		test('line items without an External ID stay when none are sent; Remove All Documents', () => {
			const [created] = run.outputs.Create;
			const [updated] = run.outputs['Update one line item'];
			expect(updated.id).toBe(created.id);
			expect(lineItemsOf(updated)).toEqual([
				{
					externalId: undefined,
					description: 'Onboarding, second wave',
					unitCount: undefined,
					amount: 250,
				},
				{ externalId: 'LI-1', description: 'Seats', unitCount: 100, amount: 10 },
			]);
			expect(updated.documents).toEqual([]);
			const body = calls('PUT', '/api/contracts/v1').at(-2)?.body as IDataObject;
			expect(body).toMatchObject({ externalId: 'E2E-CTR-1', documents: [] });
		});

		test('Get by ID and by External ID, and Get Many on a line item External ID', () => {
			const [last] = run.outputs['Update one line item'];
			expect(run.outputs['Get by ID']).toEqual([last]);
			expect(run.outputs['Get by external ID']).toEqual([last]);
			expect(run.outputs['Find by line item']).toEqual([last]);
		});

		test('a contract read from the service is written back unchanged', () => {
			expect(run.outputs['Get seeded']).toEqual([seeded]);
			const [written] = run.outputs['Write back'];
			const { lastModifiedDtm, lastModifiedBy, ...rest } = written;
			expect(rest).toEqual({
				...seeded,
				lastModifiedDtm: undefined,
				lastModifiedBy: undefined,
			});
			expect(lastModifiedDtm! > seeded.lastModifiedDtm!).toBe(true);
			expect(lastModifiedBy).toMatchObject({ name: 'stockroom-demo (API client)' });
		});

		test('Delete by External ID and by ID; missing with and without Ignore Missing', () => {
			expect(run.outputs['Delete by external ID']).toEqual([
				{ externalId: 'E2E-CTR-1', deleted: true },
			]);
			expect(run.outputs['Delete by ID']).toEqual([{ id: seeded.id, deleted: true }]);
			expect(sandbox.store.contracts.findByExternalId('E2E-CTR-1')).toBeUndefined();
			expect(sandbox.store.contracts.get(String(seeded.id))).toBeUndefined();
			expect(run.outputs['Delete again, ignore missing']).toEqual([
				{ externalId: 'E2E-CTR-1', deleted: false, notFound: true },
			]);
			expect(run.outputs['Delete missing']).toEqual([
				{
					error: `Could not delete the contract ${String(seeded.id)}: it was not found (HTTP 404) [item 0]`,
					message: expect.stringContaining(
						`No contract has the id or externalId '${String(seeded.id)}'.`,
					),
				},
			]);
		});
	});

	describe('User, through a storm of 429 answers', () => {
		let users: IDataObject[];
		let usersRun: WorkflowRun;

		beforeAll(async () => {
			users = JSON.parse(JSON.stringify(sandbox.store.users.all())) as IDataObject[];
			sandbox.resetStats();
			sandbox.setFaults('429:0.3');
			try {
				usersRun = await home.executeWorkflow(usersWorkflowId);
			} finally {
				sandbox.setFaults('');
			}
		});

		test('the workflow succeeds; the service answered 429 many times and was waited for', () => {
			expect(usersRun.error).toBeUndefined();
			expect(usersRun.nodeErrors).toEqual({});
			const statuses = sandbox.journal().map((call) => call.status);
			expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
		});

		test('Get Many, Return All: every user once, in order, over seven pages', () => {
			expect(users).toHaveLength(625);
			expect(usersRun.outputs['All users']).toEqual(users);
			const pages = calls('GET', '/api/scim/v2/Users').filter(
				(call) => call.status === 200 && call.query.count === '100' && !call.query.filter,
			);
			expect(pages.map((call) => call.query.startIndex)).toEqual([
				'1',
				'101',
				'201',
				'301',
				'401',
				'501',
				'601',
			]);
		});

		test('Get Many, Limit 30 with page size 25: the first 30 users', () => {
			expect(ids(usersRun.outputs['First 30'])).toEqual(ids(users.slice(0, 30)));
		});

		test('Get Many with a SCIM filter expression and with the builder', () => {
			const engineers = users.filter(
				(record) =>
					String(record.title).toLowerCase().includes('engineer') && record.active === true,
			);
			expect(engineers.length).toBeGreaterThan(20);
			expect(ids(usersRun.outputs['Active engineers'])).toEqual(ids(engineers));
			const inactive = users.filter((record) => record.active === false);
			expect(inactive.length).toBeGreaterThan(0);
			expect(ids(usersRun.outputs['Inactive by builder'])).toEqual(ids(inactive));
			const filters = calls('GET', '/api/scim/v2/Users').map((call) => call.query.filter);
			expect(filters).toContain('title co "engineer" and active eq true');
			expect(filters).toContain('active eq false and emails.value ew ".example"');
		});

		test('Get by ID and from the list', () => {
			expect(usersRun.outputs['Get user']).toEqual([users[321]]);
			expect(usersRun.outputs['Get user from list']).toEqual([users[321]]);
		});

		test('Get By Email finds a user whose userName is not their e-mail, in one request, and says it matched by emails', () => {
			expect(users[222].userName).toBe('gturing222');
			expect(usersRun.outputs['Get by e-mail, login user name']).toEqual([
				{ ...users[222], matchedBy: 'emails' },
			]);
			const address = JSON.stringify(loginAddress);
			const sent = calls('GET', '/api/scim/v2/Users').filter(
				(call) => call.status === 200 && call.query.filter?.includes(address),
			);
			expect(sent.map((call) => call.query.filter)).toEqual([
				`userName eq ${address} or emails[value eq ${address}]`,
			]);
		});
	});
});
