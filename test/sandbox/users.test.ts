import { startHarness, type Harness } from './support/harness';
import type { ScimUser } from '../../sandbox/store';

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM users', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const users = () => h.sandbox.store.users.all();

	test('the demo set has at least 25 realistic users', async () => {
		const response = await h.api.get('/api/scim/v2/Users');
		expect(response.status).toBe(200);
		expect(response.data).toEqual({
			schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
			totalResults: users().length,
			itemsPerPage: users().length,
			startIndex: 1,
			Resources: users(),
		});
		expect(users().length).toBeGreaterThanOrEqual(25);
		for (const user of response.data.Resources as ScimUser[]) {
			expect(user).toEqual({
				schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
				id: expect.stringMatching(/^[0-9a-f]{32}$/),
				userName: expect.stringMatching(/^[a-z]+\.[a-z]+\d*@northwind\.example$/),
				name: {
					formatted: expect.any(String),
					givenName: expect.any(String),
					familyName: expect.any(String),
				},
				displayName: expect.any(String),
				title: expect.any(String),
				locale: expect.any(String),
				preferredLanguage: expect.any(String),
				active: expect.any(Boolean),
				emails: [{ value: user.userName, type: 'work', primary: true }],
				roles: [{ value: expect.any(String), display: expect.any(String), primary: true }],
				meta: {
					created: expect.any(String),
					lastModified: expect.any(String),
					resourceType: 'User',
				},
			});
		}
		expect(new Set(users().map((user) => user.userName)).size).toBe(users().length);
	});

	test('paging by startIndex and count; the client adds count to startIndex', async () => {
		const seen: string[] = [];
		for (let startIndex = 1; ; startIndex += 7) {
			const { data } = await h.api.get('/api/scim/v2/Users', { params: { startIndex, count: 7 } });
			expect(data.startIndex).toBe(startIndex);
			expect(data.totalResults).toBe(users().length);
			expect(data).not.toHaveProperty('next');
			seen.push(...data.Resources.map((user: ScimUser) => user.id));
			if (data.itemsPerPage < 7) break;
		}
		expect(seen).toEqual(users().map((user) => user.id));
	});

	test('startIndex below 1 reads as 1; count 0 gives only the total', async () => {
		expect((await h.api.get('/api/scim/v2/Users?startIndex=0&count=2')).data).toMatchObject({
			startIndex: 1,
			itemsPerPage: 2,
		});
		const counted = await h.api.get('/api/scim/v2/Users?count=0');
		expect(counted.data).toMatchObject({
			totalResults: users().length,
			itemsPerPage: 0,
			Resources: [],
		});
	});

	test('past the end: an empty page', async () => {
		const { data } = await h.api.get(`/api/scim/v2/Users?startIndex=${users().length + 1}`);
		expect(data).toMatchObject({ itemsPerPage: 0, Resources: [] });
	});

	test('a SCIM filter on userName (case-insensitive)', async () => {
		const user = users()[4];
		const { data } = await h.api.get('/api/scim/v2/Users', {
			params: { filter: `userName eq "${user.userName.toUpperCase()}"` },
		});
		expect(data.totalResults).toBe(1);
		expect(data.Resources).toEqual([user]);
	});

	test('filters on nested and multi-valued attributes', async () => {
		const inactive = users()
			.filter((user) => user.active === false)
			.map((user) => user.id);
		const response = await h.api.get('/api/scim/v2/Users', {
			params: { filter: 'active eq false' },
		});
		expect(response.data.Resources.map((user: ScimUser) => user.id)).toEqual(inactive);
		const family = (users()[0].name as { familyName: string }).familyName;
		const byName = await h.api.get('/api/scim/v2/Users', {
			params: { filter: `name.familyName eq "${family}"` },
		});
		expect(byName.data.totalResults).toBe(
			users().filter((user) => (user.name as { familyName: string }).familyName === family).length,
		);
		const byEmail = await h.api.get('/api/scim/v2/Users', {
			params: {
				filter: `emails[type eq "work" and value sw "${users()[2].userName.slice(0, 6)}"]`,
			},
		});
		expect(byEmail.data.Resources.map((user: ScimUser) => user.id)).toContain(users()[2].id);
	});

	test('an invalid filter: 400 SCIM error with scimType invalidFilter', async () => {
		const response = await h.api.get('/api/scim/v2/Users', {
			params: { filter: 'usrName eq "x"' },
		});
		expect(response.status).toBe(400);
		expect(response.data).toEqual({
			schemas: [SCIM_ERROR],
			scimType: 'invalidFilter',
			status: '400',
			detail: expect.stringMatching(
				/column 1: unknown attribute 'usrName' \(did you mean 'userName'\?\)/,
			),
		});
	});

	test.each([
		['startIndex', 'first'],
		['count', '1.5'],
	])('%s=%s: 400 SCIM invalidValue', async (name, value) => {
		const response = await h.api.get(`/api/scim/v2/Users?${name}=${value}`);
		expect(response.status).toBe(400);
		expect(response.data).toMatchObject({
			schemas: [SCIM_ERROR],
			scimType: 'invalidValue',
			status: '400',
		});
	});

	test('GET one user by id', async () => {
		const user = users()[3];
		const response = await h.api.get(`/api/scim/v2/Users/${user.id}`);
		expect(response.status).toBe(200);
		expect(response.data).toEqual(user);
	});

	test('an unknown user: 404 SCIM error body', async () => {
		const response = await h.api.get('/api/scim/v2/Users/0123456789abcdef0123456789abcdef');
		expect(response.status).toBe(404);
		expect(response.data).toEqual({
			schemas: [SCIM_ERROR],
			status: '404',
			detail: expect.stringContaining('0123456789abcdef'),
		});
	});

	test('users are read-only here: PUT is 405 with Allow', async () => {
		const response = await h.api.put(`/api/scim/v2/Users/${users()[0].id}`, {});
		expect(response.status).toBe(405);
		expect(response.headers.allow).toBe('GET');
		expect(response.data).toMatchObject({ schemas: [SCIM_ERROR], status: '405' });
	});
});
