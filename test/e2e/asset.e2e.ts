import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import type { StoredRecord } from '../../sandbox/store';
import {
	buildWorkflow,
	createN8nHome,
	jsonItems,
	locator,
	NODE,
	type CredentialRef,
	type N8nHome,
	type NodeSpec,
	type WorkflowRun,
} from '../../scripts/n8n';
import { assetMainFields } from './simplified';

const AWKWARD = 'Weird "quoted" \\ back\\slash — ünïcødé 😀 x" or status pr or "';
const AWKWARD_EXTERNAL_ID = 'E2E-AWK-"1"\\ü';
const REQUIRED = {
	status: 'New',
	hardwareVendor: 'Dell',
	assetType: 'Laptop',
};

/** `until` as the date picker gives it: no zone, read in the workflow's time zone. */
const WINDOW = { since: '2024-01-01T00:00:00Z', until: '2024-12-31T23:59:59' };
const TIMEZONE = 'Europe/Berlin';
const FLEET = 2000;
const UNTIL_UTC = '2024-12-31T22:59:59Z';
const asset = (name: string, parameters: IDataObject, continueOnFail = false): NodeSpec => ({
	name,
	type: NODE.asset,
	parameters,
	continueOnFail,
});

const idOf = (node: string) => `={{ $('${node}').first().json.id }}`;

/**
 * Every Asset operation, one branch after another from one Manual Trigger. `conflict` is an item
 * whose id and External ID belong to two different assets.
 */
function operationsWorkflow(credential: CredentialRef, conflict: IDataObject) {
	return buildWorkflow(
		'Asset operations',
		credential,
		[
			// reads first: the later branches change the data
			[asset('All assets', { operation: 'getAll', returnAll: true })],
			[asset('First 25', { operation: 'getAll', limit: 25, options: { pageSize: 10 } })],
			[asset('First 5, simplified', { operation: 'getAll', limit: 5, simplify: true })],
			[
				asset('Expression filter', {
					operation: 'getAll',
					returnAll: true,
					filterMode: 'expression',
					filterExpression:
						'HARDWAREVENDOR eq "apple" and (status eq "Deployed" or status eq "OutForRepair") and not (lastSyncDtm pr)',
				}),
			],
			[
				asset('Search and modified window', {
					operation: 'getAll',
					returnAll: true,
					options: { q: 'lenovo', since: WINDOW.since, until: WINDOW.until, pageSize: 50 },
				}),
			],
			[
				asset('Create with custom fields', {
					operation: 'upsert',
					externalId: 'E2E-CF-1',
					deviceName: 'Custom fields workstation',
					...REQUIRED,
					customFieldsUi: {
						values: [
							{ name: 'memoryGb', type: 'number', numberValue: 128 },
							{ name: 'costCenter', type: 'text', textValue: 'E2E-CC "7"' },
							{ name: 'purchaseCost', type: 'money', amount: 1234.5, currency: 'EUR' },
						],
					},
				}),
				asset('Find by custom fields', {
					operation: 'getAll',
					returnAll: true,
					filterMode: 'manual',
					conditions: {
						condition: [
							// typed as a number by the field's definition, so compared as one
							{ field: 'customFieldValues.memoryGb', operator: 'ge', value: '100' },
							{ field: 'customFieldValues.costCenter', operator: 'eq', value: 'E2E-CC "7"' },
						],
					},
				}),
				asset('Update a custom field', {
					operation: 'update',
					asset: locator('id', idOf('Create with custom fields')),
					customFieldsUi: { values: [{ name: 'memoryGb', type: 'number', numberValue: 256 }] },
				}),
			],
			[
				asset('Create awkward', {
					operation: 'upsert',
					externalId: AWKWARD_EXTERNAL_ID,
					deviceName: AWKWARD,
					...REQUIRED,
					additionalFields: { notes: 'line 1\nline 2 \\n "not an escape"' },
				}),
				asset('Find awkward', {
					operation: 'getAll',
					returnAll: true,
					filterMode: 'manual',
					matchType: 'all',
					conditions: {
						condition: [
							{ field: 'deviceName', operator: 'eq', value: AWKWARD },
							// a value taken from the previous node, awkward too
							{ field: 'externalId', operator: 'eq', value: '={{ $json.externalId }}' },
							{ field: 'status', operator: 'ne', statusValue: 'Retired' },
						],
					},
				}),
			],
			[
				asset('Get by ID', { operation: 'get', asset: locator('id', idOf('Create awkward')) }),
				asset('Get by external ID', {
					operation: 'get',
					asset: locator('externalId', AWKWARD_EXTERNAL_ID),
				}),
				asset('Get from list', {
					operation: 'get',
					asset: locator('list', idOf('Create awkward')),
				}),
			],
			[
				asset('Upsert new', {
					operation: 'upsert',
					externalId: 'E2E-UP-1',
					deviceName: 'Upsert laptop',
					...REQUIRED,
					additionalFields: {
						serialNumber: 'SN-UP-1',
						purchasedDate: '2024-02-29T00:00:00',
						lastSyncDtm: '2026-01-02T03:04:05.678Z',
						// a local time from the date picker, in the workflow's time zone
						enrolledDtm: '2025-06-01T12:00:00',
					},
				}),
				asset('Upsert again', {
					operation: 'upsert',
					externalId: 'E2E-UP-1',
					deviceName: 'Upsert laptop, renamed',
					...REQUIRED,
					status: 'Deployed',
					additionalFields: { assetTag: 'TAG-UP-1', notes: 'to be cleared' },
				}),
				asset('Update', {
					operation: 'update',
					asset: locator('id', '={{ $json.id }}'),
					updateFields: { deviceName: 'Patched laptop', netPrice: 999.5 },
					fieldsToClear: ['notes'],
				}),
			],
			[
				jsonItems('Asset rows', [
					{
						externalId: 'E2E-JSON-1',
						deviceName: 'JSON one',
						...REQUIRED,
						purchasedDate: '2023-07-01',
						// set by the service: ignored when sent
						createdDtm: '2000-01-01T00:00:00Z',
						statusType: 'Whatever',
					},
					{ externalId: 'E2E-JSON-2', deviceName: 'JSON two', ...REQUIRED, status: 'Lost' },
					{ externalId: 'E2E-JSON-3', deviceName: 'JSON three', ...REQUIRED, isEncrypted: true },
					{ ...conflict, deviceName: 'Conflict', ...REQUIRED },
				]),
				asset('Upsert from JSON', { operation: 'upsert', inputMode: 'json' }, true),
			],
			[
				asset('Delete', { operation: 'delete', asset: locator('id', idOf('Create awkward')) }),
				asset('Delete again, ignore missing', {
					operation: 'delete',
					asset: locator('id', idOf('Create awkward')),
					options: { ignoreNotFound: true },
				}),
				asset('Delete unknown external ID, ignore missing', {
					operation: 'delete',
					asset: locator('externalId', 'E2E-NO-SUCH-ASSET'),
					options: { ignoreNotFound: true },
				}),
				asset(
					'Delete missing',
					{ operation: 'delete', asset: locator('id', idOf('Create awkward')) },
					true,
				),
				asset(
					'Delete unknown external ID',
					{ operation: 'delete', asset: locator('externalId', 'E2E-NO-SUCH-ASSET') },
					true,
				),
			],
		],
		{ settings: { timezone: TIMEZONE } },
	);
}

describe('Stockroom Asset in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let run: WorkflowRun;
	let seeded: IDataObject[];
	let first: StoredRecord;
	let second: StoredRecord;
	let invalidFilterId: string;
	let invalidItemWorkflowId: string;
	let twinsWorkflowId: string;
	let fleetWorkflowId: string;
	const calls = (method: string, path: string) =>
		sandbox.journal().filter((entry) => entry.method === method && entry.path === path);
	const ids = (items: IDataObject[]) => items.map((item) => item.id);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 2500 });
		[first, second] = sandbox.store.assets.all();
		home = await createN8nHome();
		const credential = { id: 'stockroomAssetE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		const [operationsId, invalidId, invalidItemId, twinsId, fleetId] = await home.importWorkflows([
			operationsWorkflow(credential, { id: first.id, externalId: String(second.externalId) }),
			buildWorkflow('Invalid filter expression', credential, [
				[
					asset('Bad filter', {
						operation: 'getAll',
						returnAll: true,
						filterMode: 'expression',
						filterExpression: 'status eq "New" and stauts eq "Deployed"',
					}),
				],
			]),
			buildWorkflow('Invalid item', credential, [
				[
					jsonItems('Rows', [
						{ externalId: 'E2E-STOP-1', deviceName: 'Valid', ...REQUIRED },
						{
							externalId: 'E2E-STOP-2',
							deviceName: 'Bad date',
							...REQUIRED,
							purchasedDate: '2024-02-30',
						},
					]),
					asset('Upsert rows', { operation: 'upsert', inputMode: 'json' }),
				],
			]),
			buildWorkflow('Same External ID twice', credential, [
				[
					jsonItems('Twins', [
						{ externalId: 'E2E-OTHER-1', deviceName: 'Other', ...REQUIRED },
						{ externalId: 'E2E-TWIN-1', deviceName: 'First', ...REQUIRED },
						{ externalId: 'E2E-TWIN-1', deviceName: 'Second', ...REQUIRED, status: 'Deployed' },
					]),
					asset('Replace twins', { operation: 'upsert', mode: 'replace', inputMode: 'json' }),
				],
			]),
			buildWorkflow('First import of a fleet', credential, [
				[
					jsonItems(
						'MDM export',
						Array.from({ length: FLEET }, (_, index) => ({
							externalId: `E2E-FLEET-${index}`,
							deviceName: `Fleet device ${index}`,
							...REQUIRED,
						})),
					),
					asset('Sync fleet', {
						operation: 'sync',
						fieldsToSync: ['deviceName', 'status', 'hardwareVendor', 'assetType'],
						filterMode: 'expression',
						filterExpression: 'externalId sw "E2E-FLEET-"',
					}),
				],
			]),
		]);
		fleetWorkflowId = fleetId;
		invalidFilterId = invalidId;
		invalidItemWorkflowId = invalidItemId;
		twinsWorkflowId = twinsId;
		seeded = JSON.parse(JSON.stringify(sandbox.store.assets.all())) as IDataObject[];
		run = await home.executeWorkflow(operationsId);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('the workflow runs without a node error', () => {
		expect(run.error).toBeUndefined();
		expect(run.nodeErrors).toEqual({});
		expect(run.status).toBe('success');
	});

	test('Get Many, Return All: every asset once, in order, over three pages of 1000', () => {
		expect(seeded).toHaveLength(2500);
		expect(ids(run.outputs['All assets'])).toEqual(ids(seeded));
		expect(run.outputs['All assets'][1234]).toEqual(seeded[1234]);
		const firstPages = calls('GET', '/api/assets/v1').filter((call) => !call.query.filter);
		expect(
			firstPages.slice(0, 3).map((call) => [call.query.limit, Boolean(call.query.after)]),
		).toEqual([
			['1000', false],
			['1000', true],
			['1000', true],
		]);
	});

	test('Get Many, Limit 25 with page size 10: the first 25 assets, three pages', () => {
		expect(ids(run.outputs['First 25'])).toEqual(ids(seeded.slice(0, 25)));
		// later pages follow the next link as given, so they keep limit=10
		const pages = calls('GET', '/api/assets/v1').filter((call) => call.query.limit === '10');
		expect(pages.map((call) => Boolean(call.query.after))).toEqual([false, true, true]);
	});

	test('Get Many with Simplify: the main fields of each asset', () => {
		expect(run.outputs['First 5, simplified']).toEqual(seeded.slice(0, 5).map(assetMainFields));
	});

	test('Get Many, expression filter: checked, sent normalized, the same assets as the data says', () => {
		const expected = seeded.filter(
			(record) =>
				String(record.hardwareVendor).toLowerCase() === 'apple' &&
				['Deployed', 'OutForRepair'].includes(String(record.status)) &&
				record.lastSyncDtm === undefined,
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(run.outputs['Expression filter'])).toEqual(ids(expected));
		expect(calls('GET', '/api/assets/v1').map((call) => call.query.filter)).toContain(
			'HARDWAREVENDOR eq "apple" and (status eq "Deployed" or status eq "OutForRepair") and not (lastSyncDtm pr)',
		);
	});

	test('Get Many options: search text and a modified window, local times in the workflow time zone', async () => {
		const query = { q: 'lenovo', since: WINDOW.since, until: UNTIL_UTC };
		const sent = calls('GET', '/api/assets/v1').find((call) => call.query.q);
		expect(sent?.query).toEqual({ ...query, limit: '50' });
		// the service's own answer to the same query, in one page
		const response = await fetch(
			`${sandbox.url}/api/assets/v1?${new URLSearchParams({ ...query, limit: '1000' })}`,
			{ headers: { authorization: `Bearer ${sandbox.token()}` } },
		);
		const expected = ((await response.json()) as { results: IDataObject[] }).results;
		expect(expected.length).toBeGreaterThan(50);
		expect(expected.length).toBeLessThan(1000);
		expect(ids(run.outputs['Search and modified window'])).toEqual(ids(expected));
	});

	test('custom fields: written with their types, found by a typed builder filter, updated by name', () => {
		const [created] = run.outputs['Create with custom fields'];
		expect(created.customFieldValues).toEqual({
			memoryGb: { numberValue: 128 },
			costCenter: { textValue: 'E2E-CC "7"' },
			purchaseCost: { currencyValue: { value: 1234.5, currency: 'EUR' } },
		});
		expect(run.outputs['Find by custom fields']).toEqual([created]);
		// Update merges custom fields by name: the others keep their values
		expect(run.outputs['Update a custom field']).toEqual([
			expect.objectContaining({
				id: created.id,
				customFieldValues: {
					memoryGb: { numberValue: 256 },
					costCenter: { textValue: 'E2E-CC "7"' },
					purchaseCost: { currencyValue: { value: 1234.5, currency: 'EUR' } },
				},
			}),
		]);
		expect(calls('GET', '/api/assets/v1').map((call) => call.query.filter)).toContain(
			'customFieldValues.memoryGb ge 100 and customFieldValues.costCenter eq "E2E-CC \\"7\\""',
		);
	});

	test('Create or Update creates an asset with awkward values; the builder finds exactly it', () => {
		const [created] = run.outputs['Create awkward'];
		expect(created).toMatchObject({
			externalId: AWKWARD_EXTERNAL_ID,
			deviceName: AWKWARD,
			status: 'New',
			notes: 'line 1\nline 2 \\n "not an escape"',
		});
		expect(created.id).toMatch(/^[0-9a-f]{24}$/);
		expect(run.outputs['Find awkward']).toEqual([created]);
		const sent = calls('GET', '/api/assets/v1').find((call) =>
			call.query.filter?.startsWith('deviceName eq'),
		);
		expect(sent?.query.filter).toBe(
			`deviceName eq ${JSON.stringify(AWKWARD)} and externalId eq ${JSON.stringify(AWKWARD_EXTERNAL_ID)} and not (status eq "Retired")`,
		);
	});

	test('Get by ID, by External ID and from the list return the same asset', () => {
		const [created] = run.outputs['Create awkward'];
		expect(run.outputs['Get by ID']).toEqual([created]);
		expect(run.outputs['Get by external ID']).toEqual([created]);
		expect(run.outputs['Get from list']).toEqual([created]);
	});

	test('Create or Update twice with one External ID: one asset, replaced', () => {
		const [first] = run.outputs['Upsert new'];
		const [second] = run.outputs['Upsert again'];
		expect(first).toMatchObject({
			externalId: 'E2E-UP-1',
			deviceName: 'Upsert laptop',
			serialNumber: 'SN-UP-1',
			purchasedDate: '2024-02-29T00:00:00Z',
			lastSyncDtm: '2026-01-02T03:04:05.678Z',
			enrolledDtm: '2025-06-01T10:00:00.000Z',
		});
		expect(first.createdDtm).toBe(first.lastModifiedDtm);
		expect(second).toMatchObject({
			id: first.id,
			createdDtm: first.createdDtm,
			deviceName: 'Upsert laptop, renamed',
			status: 'Deployed',
			assetTag: 'TAG-UP-1',
		});
		expect(second.lastModifiedDtm! > first.lastModifiedDtm!).toBe(true);
		// a PUT replaces: fields not sent again are gone
		expect(second).not.toHaveProperty('serialNumber');
		expect(second).not.toHaveProperty('lastSyncDtm');
	});

	test('Update changes the given fields, clears Fields to Clear and keeps the rest', () => {
		const [second] = run.outputs['Upsert again'];
		expect(run.outputs.Update).toHaveLength(1);
		const [updated] = run.outputs.Update;
		expect(updated).toMatchObject({
			id: second.id,
			externalId: 'E2E-UP-1',
			deviceName: 'Patched laptop',
			netPrice: 999.5,
			status: 'Deployed',
			assetTag: 'TAG-UP-1',
		});
		expect(updated).not.toHaveProperty('notes');
		const patches = calls('PATCH', `/api/assets/v1/${String(second.id)}`);
		expect(patches.map((call) => call.body)).toEqual([
			{ deviceName: 'Patched laptop', netPrice: 999.5, notes: null },
		]);
	});

	test('Use Input Item JSON with Continue On Fail: bad items become error items, the others go through', () => {
		const output = run.outputs['Upsert from JSON'];
		expect(output).toHaveLength(4);
		expect(output[0]).toMatchObject({
			externalId: 'E2E-JSON-1',
			purchasedDate: '2023-07-01T00:00:00Z',
		});
		expect(output[0].createdDtm).not.toBe('2000-01-01T00:00:00Z');
		expect(output[0].statusType).toBe('Available');
		// invalid: found before sending
		expect(output[1]).toEqual({
			error:
				'Invalid asset: Status (status) expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired, got "Lost" [item 1]',
			message:
				'Status (status): expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired, got "Lost"',
		});
		expect(output[2]).toMatchObject({ externalId: 'E2E-JSON-3', isEncrypted: true });
		// refused by the service
		expect(output[3]).toEqual({
			error: `Could not create or update the asset "${String(second.externalId)}": Conflict [item 3]`,
			message: expect.stringMatching(
				new RegExp(
					`^The externalId '${String(second.externalId)}' belongs to the asset '${second.id}', not '${first.id}'\\.\\n\\(HTTP 409, trace ID 00-[0-9a-f]{32}-[0-9a-f]{16}-00\\)$`,
				),
			),
		});
		expect(sandbox.store.assets.get(first.id)?.deviceName).toBe(first.deviceName);

		const sent = calls('PUT', '/api/assets/v1').map((call) => call.body as IDataObject);
		const sentIds = sent.map((body) => body.externalId);
		expect(sentIds).toEqual(
			expect.arrayContaining(['E2E-JSON-1', 'E2E-JSON-3', second.externalId]),
		);
		expect(sentIds).not.toContain('E2E-JSON-2');
		const body = sent.find((candidate) => candidate.externalId === 'E2E-JSON-1');
		expect(body).not.toHaveProperty('createdDtm');
		expect(body).not.toHaveProperty('statusType');
		expect(sandbox.store.assets.findByExternalId('E2E-JSON-2')).toBeUndefined();
	});

	test('Delete: existing, missing with Ignore Missing, missing without it', () => {
		const [created] = run.outputs['Create awkward'];
		expect(run.outputs.Delete).toEqual([{ id: created.id, deleted: true }]);
		expect(sandbox.store.assets.get(String(created.id))).toBeUndefined();
		expect(run.outputs['Delete again, ignore missing']).toEqual([
			{ id: created.id, deleted: false, notFound: true },
		]);
		expect(run.outputs['Delete unknown external ID, ignore missing']).toEqual([
			{ externalId: 'E2E-NO-SUCH-ASSET', deleted: false, notFound: true },
		]);
		expect(run.outputs['Delete missing']).toEqual([
			{
				error: `Could not delete asset ${String(created.id)}: it was not found (HTTP 404) [item 0]`,
				message: expect.stringMatching(
					/^No asset has the id '[0-9a-f]{24}'\.\n\(HTTP 404, trace ID 00-/,
				),
			},
		]);
		expect(run.outputs['Delete unknown external ID']).toEqual([
			expect.objectContaining({
				error:
					'Could not delete the asset with External ID "E2E-NO-SUCH-ASSET": it does not exist [item 0]',
			}),
		]);
	});

	test('an invalid filter expression fails the node naming the column, before any request', async () => {
		sandbox.resetStats();
		const failed = await home.executeWorkflow(invalidFilterId);
		expect(failed.status).toBe('error');
		expect(failed.error?.node).toBe('Bad filter');
		expect(failed.error?.message).toMatch(
			/^Filter Expression, column 21: unknown attribute 'stauts' \(did you mean 'status'\?\)/,
		);
		expect(sandbox.stats().totalRequests).toBe(0);
	});

	test('without Continue On Fail, an invalid item stops the node before anything is written', async () => {
		sandbox.resetStats();
		const failed = await home.executeWorkflow(invalidItemWorkflowId);
		expect(failed.status).toBe('error');
		expect(failed.error).toMatchObject({
			node: 'Upsert rows',
			message: expect.stringMatching(
				/^Invalid asset: Purchased Date \(purchasedDate\) .*\[item 1\]$/,
			),
		});
		expect(sandbox.stats().totalRequests).toBe(0);
		expect(sandbox.store.assets.findByExternalId('E2E-STOP-1')).toBeUndefined();
	});

	// the first twin's call is held up at the service: written at once, the second twin would
	// reach it first and the first twin's values would be kept
	test('Replace, the same External ID twice in one run: written in item order, the last one stays', async () => {
		sandbox.resetStats();
		sandbox.failNext(1, 'slow', 1);
		const twins = await home.executeWorkflow(twinsWorkflowId);
		expect(twins.error).toBeUndefined();
		expect(twins.status).toBe('success');
		expect(twins.outputs['Replace twins'].map((item) => item.deviceName)).toEqual([
			'Other',
			'First',
			'Second',
		]);
		expect(sandbox.store.assets.findByExternalId('E2E-TWIN-1')).toMatchObject({
			deviceName: 'Second',
			status: 'Deployed',
		});
		expect(
			sandbox
				.journal()
				.filter((call) => call.method === 'PUT')
				.map((call) => call.fault),
		).toEqual([undefined, 'slow', undefined]);
	});

	// issue 41: the run sends the token it read from the credential; n8n renews it on a 401
	test(`a first import of ${FLEET.toLocaleString('en')} assets while the token expires twice: renewed once each time, every asset created once`, async () => {
		sandbox.resetStats();
		sandbox.expireTokens(500, 1500);
		const imported = await home.executeWorkflow(fleetWorkflowId);
		expect(imported.error).toBeUndefined();
		expect(imported.status).toBe('success');
		const actions = imported.outputs['Sync fleet'].filter((item) => item.action === 'created');
		expect(actions).toHaveLength(FLEET);
		const fleet = sandbox.store.assets
			.all()
			.filter((record) => String(record.externalId).startsWith('E2E-FLEET-'));
		expect(new Set(fleet.map((record) => record.externalId)).size).toBe(FLEET);
		expect(fleet).toHaveLength(FLEET);
		const stats = sandbox.stats();
		expect(stats.requests['POST /connect/token']).toBe(2);
		// the writes in flight at each expiry met it (8 at most each time) and were sent again
		const refused = stats.statuses[401] ?? 0;
		expect(refused).toBeGreaterThanOrEqual(2);
		expect(refused).toBeLessThanOrEqual(16);
		// one create per asset, and again only those the expired token stopped (the scope is read
		// in the first few calls, before either expiry); nothing else failed
		expect(stats.requests['PUT /api/assets/v1']).toBe(FLEET + refused);
		expect((stats.statuses[200] ?? 0) + (stats.statuses[201] ?? 0)).toBe(
			stats.totalRequests - refused,
		);
		expect(stats.maxInFlight).toBeLessThanOrEqual(8);
	});
});
