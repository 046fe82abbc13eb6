import {
	NodeHelpers,
	type IDataObject,
	type INode,
	type INodeParameters,
	type NodeExecutionHint,
} from 'n8n-workflow';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import { recordLabel } from '../../nodes/shared/resources';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { sandboxCredentialInput } from '../../sandbox/credential';
import { CredentialStore, runNode, type CredentialInput } from '../helpers/n8n';
import { createRecorder, type RecordedCall, type Recorder } from '../helpers/recorder';
import {
	createScimmyServer,
	ENTERPRISE_USER,
	seedScimmyUsers,
	type ScimmyServer,
	type ScimmyUser,
} from '../helpers/scimmy';

/**
 * The User node against two SCIM servers over real HTTP: the package's sandbox (our reading of
 * the service), and SCIMMY (npm `scimmy` + `scimmy-routers`, an implementation of RFC 7643/7644
 * nobody here wrote) behind its own OAuth2 token endpoint. Each runs behind a recording proxy,
 * which also answers a request itself where a test needs a server that behaves otherwise.
 */

const node = new StockroomUser();
const USERS = '/api/scim/v2/Users';
const SCIM_ACCEPT = 'application/scim+json, application/json';
const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

interface Target {
	label: string;
	credential: () => CredentialStore;
	recorder: () => Recorder;
	/** The users in the server's order. */
	users: () => IDataObject[];
	/** Adds a user, or replaces the one with its id. */
	put: (user: IDataObject) => void;
	reset: () => void;
}

let sandbox: Sandbox;
let scimmy: ScimmyServer;
const recorders: Recorder[] = [];

async function front(upstream: string, input: CredentialInput) {
	const recorder = await createRecorder(upstream);
	recorders.push(recorder);
	return { recorder, credential: new CredentialStore({ ...input, baseUrl: recorder.url }) };
}

let sandboxFront: { recorder: Recorder; credential: CredentialStore };
let scimmyFront: { recorder: Recorder; credential: CredentialStore };

beforeAll(async () => {
	sandbox = await createSandbox({ records: 400 });
	scimmy = await createScimmyServer(seedScimmyUsers(250));
	sandboxFront = await front(sandbox.url, sandboxCredentialInput(sandbox));
	scimmyFront = await front(scimmy.url, scimmy.credential);
});

afterAll(async () => {
	await Promise.all(recorders.map((recorder) => recorder.close()));
	await sandbox?.close();
	await scimmy?.close();
});

const SANDBOX: Target = {
	label: 'the sandbox',
	credential: () => sandboxFront.credential,
	recorder: () => sandboxFront.recorder,
	users: () => sandbox.store.users.all() as unknown as IDataObject[],
	put: (user) => sandbox.store.users.put(user as never),
	reset: () => sandbox.reset(),
};

const SCIMMY: Target = {
	label: 'SCIMMY',
	credential: () => scimmyFront.credential,
	recorder: () => scimmyFront.recorder,
	users: () => scimmy.users as unknown as IDataObject[],
	put: (user) => {
		const at = scimmy.users.findIndex((candidate) => candidate.id === user.id);
		if (at >= 0) scimmy.users[at] = user as ScimmyUser;
		else scimmy.users.push(user as ScimmyUser);
	},
	reset: () => scimmy.reset(),
};

const emailOf = (user: Record<string, unknown>) => String((user.emails as IDataObject[])[0].value);
const ids = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.id);

/** A user whose userName is a directory login, not an e-mail address. */
function loginUser(target: Target): IDataObject {
	const user = target.users().find((candidate) => !String(candidate.userName).includes('@'));
	if (user) return user;
	const changed = { ...target.users()[11], userName: 'gturing11' };
	target.put(changed);
	return changed;
}

const emailLocator = (value: string) => ({ __rl: true, mode: 'email', value });
const idLocator = (value: string, mode = 'id') => ({ __rl: true, mode, value });

const errorOf = async (promise: Promise<unknown>) =>
	(await promise.then(
		() => undefined,
		(error: unknown) => error,
	)) as (Error & { description?: string }) | undefined;

describe.each([SANDBOX, SCIMMY])('the User node against $label', (target) => {
	const run = (
		parameters: IDataObject,
		extra: { input?: IDataObject[]; hints?: NodeExecutionHint[]; continueOnFail?: boolean } = {},
	) =>
		runNode(node, {
			parameters: parameters as INodeParameters,
			credential: target.credential(),
			...extra,
		});
	/** The requests to the users interface (the token endpoint's left out). */
	const userCalls = (): RecordedCall[] =>
		target
			.recorder()
			.calls()
			.filter((call) => call.path.startsWith(USERS));
	const filters = () => userCalls().map((call) => call.query.filter);

	beforeEach(() => {
		target.reset();
		target.recorder().clear();
	});

	describe('1. Get By Email looks in userName and in emails', () => {
		test('a user whose userName is not their e-mail is found by emails, in one request, and says so', async () => {
			const user = loginUser(target);
			const address = emailOf(user);
			expect(user.userName).not.toBe(address);
			const [[found]] = await run({ operation: 'get', user: emailLocator(address) });
			expect(found.json).toMatchObject({ id: user.id, userName: user.userName });
			expect(found.json.matchedBy).toBe('emails');
			expect(filters()).toEqual([
				`userName eq ${JSON.stringify(address)} or emails[value eq ${JSON.stringify(address)}]`,
			]);
		});

		test('a user whose userName is the address matches by both, and Simplify keeps what matched', async () => {
			const user = target.users().find((candidate) => String(candidate.userName).includes('@'))!;
			const [[found]] = await run({
				operation: 'get',
				user: emailLocator(String(user.userName)),
				simplify: true,
			});
			expect(found.json).toEqual({
				id: user.id,
				userName: user.userName,
				displayName: user.displayName,
				title: user.title,
				active: user.active,
				matchedBy: 'userName and emails',
			});
		});

		test('two different users for one address are an error naming both', async () => {
			const [first, second] = target.users().slice(20, 22);
			const address = emailOf(first);
			target.put({ ...second, emails: [{ value: address, type: 'home' }] });
			const error = await errorOf(run({ operation: 'get', user: emailLocator(address) }));
			expect(error?.message).toBe(
				`2 users have the e-mail address ${address}: ${recordLabel(first)} (ID ${String(first.id)}, by ${first.userName === address ? 'userName and emails' : 'emails'}) and ${recordLabel(second)} (ID ${String(second.id)}, by emails) [item 0]`,
			);
			expect(error?.message).toContain(String(second.displayName));
		});

		test('an address nobody has: both places were searched, and the error names it', async () => {
			const address = 'nobody.here@example.net';
			await expect(run({ operation: 'get', user: emailLocator(address) })).rejects.toThrow(
				`No user has the e-mail address ${address}`,
			);
			expect(filters()).toEqual([
				`userName eq ${JSON.stringify(address)} or emails[value eq ${JSON.stringify(address)}]`,
			]);
		});

		test('a server that refuses `or`: asked for userName and emails one at a time, and so for the next item at once', async () => {
			const user = loginUser(target);
			const other = target.users()[30];
			target.recorder().answerNext(USERS, {
				status: 400,
				body: {
					schemas: [SCIM_ERROR],
					status: '400',
					scimType: 'invalidFilter',
					detail: "'or' is not supported",
				},
			});
			const items = await run(
				{ operation: 'get', user: emailLocator('={{ $json.address }}') },
				{ input: [{ address: emailOf(user) }, { address: emailOf(other) }] },
			);
			expect(ids(items[0])).toEqual([user.id, other.id]);
			expect(items[0].map((item) => item.json.matchedBy)).toEqual([
				'emails',
				String(other.userName).includes('@') ? 'userName and emails' : 'emails',
			]);
			const one = (address: string) => [
				`userName eq ${JSON.stringify(address)}`,
				`emails[value eq ${JSON.stringify(address)}]`,
			];
			expect(filters()).toEqual([
				`userName eq ${JSON.stringify(emailOf(user))} or emails[value eq ${JSON.stringify(emailOf(user))}]`,
				...one(emailOf(user)),
				...one(emailOf(other)),
			]);
		});
	});

	describe('2. A user ID is whatever the server uses', () => {
		test('an ID that is not 32 hex digits (a UUID) is sent, as given or by expression, and the server serves it', async () => {
			const user = target.users()[7];
			const uuid = 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6';
			if (!/^[0-9a-f-]{36}$/.test(String(user.id))) target.put({ ...user, id: uuid });
			const id = /^[0-9a-f-]{36}$/.test(String(user.id)) ? String(user.id) : uuid;
			const [[byId]] = await run({ operation: 'get', user: idLocator(id) });
			expect(byId.json).toMatchObject({ id, userName: user.userName });
			const [[byExpression]] = await run(
				{ operation: 'get', user: idLocator('={{ $json.userId }}') },
				{ input: [{ userId: id }] },
			);
			expect(byExpression.json.id).toBe(id);
			const [[fromList]] = await run({ operation: 'get', user: idLocator(id, 'list') });
			expect(fromList.json.id).toBe(id);
			expect(userCalls().map((call) => call.path)).toEqual(Array(3).fill(`${USERS}/${id}`));
		});

		test('an ID with a slash, a space, ? and # is one encoded path segment', async () => {
			const user = target.users()[9];
			const id = 'ad/min ?#x';
			target.put({ ...user, id });
			const [[found]] = await run({ operation: 'get', user: idLocator(id) });
			expect(found.json).toMatchObject({ id, userName: user.userName });
			expect(userCalls().map((call) => call.path)).toEqual([`${USERS}/${encodeURIComponent(id)}`]);
		});

		test('an ID of no characters, or a dot segment, fails before anything is sent', async () => {
			await expect(run({ operation: 'get', user: idLocator('  ') })).rejects.toThrow(
				'User: enter the user ID',
			);
			await expect(run({ operation: 'get', user: idLocator('..') })).rejects.toThrow(
				'User: the ID ".." cannot be used in a URL path',
			);
			expect(userCalls()).toEqual([]);
		});

		test('a user that is not there: the server says so', async () => {
			await expect(
				run({ operation: 'get', user: idLocator('0d5c2f0c-0000-4000-8000-000000000000') }),
			).rejects.toThrow('it was not found (HTTP 404)');
		});
	});

	describe('3. The Filter Expression takes what RFC 7644 allows', () => {
		const getMany = (filterExpression: string, hints?: NodeExecutionHint[]) =>
			run(
				{ operation: 'getAll', returnAll: true, filterMode: 'expression', filterExpression },
				{ hints },
			);

		test('a fully qualified core attribute is sent as written, with no notice', async () => {
			const hints: NodeExecutionHint[] = [];
			const filter = 'urn:ietf:params:scim:schemas:core:2.0:User:active eq false';
			const [items] = await getMany(filter, hints);
			expect(filters()).toEqual([filter]);
			expect(hints).toEqual([]);
			const inactive = target.users().filter((user) => user.active === false);
			expect(inactive.length).toBeGreaterThan(0);
			// SCIMMY departs from RFC 7644 §3.10: it looks the qualified name up as a key and so
			// matches no user; the node outputs what the server answered
			expect(ids(items)).toEqual(target === SCIMMY ? [] : inactive.map((user) => user.id));
		});

		test('an enterprise extension attribute, fully qualified, is sent as written', async () => {
			const finance = target.users().slice(40, 43);
			for (const user of finance)
				target.put({ ...user, [ENTERPRISE_USER]: { department: 'Finance Ops' } });
			const filter = `${ENTERPRISE_USER}:department eq "Finance Ops"`;
			const hints: NodeExecutionHint[] = [];
			const [items] = await getMany(filter, hints);
			expect(filters()).toEqual([filter]);
			expect(hints).toEqual([]);
			// SCIMMY: the same departure as for the core schema's qualified names
			expect(ids(items)).toEqual(target === SCIMMY ? [] : finance.map((user) => user.id));
		});

		test('externalId and sub-attributes of multi-valued attributes', async () => {
			const tagged = target.users().slice(50, 52);
			for (const [i, user] of tagged.entries()) target.put({ ...user, externalId: `EXT-${i}` });
			const withExternalId = target.users().filter((user) => user.externalId !== undefined);
			const [byExternalId] = await getMany('externalId pr');
			expect(ids(byExternalId)).toEqual(withExternalId.map((user) => user.id));

			const prefix = emailOf(target.users()[0]).slice(0, 6);
			const filter = `emails[type eq "work" and value sw ${JSON.stringify(prefix)}] and emails.primary eq true`;
			const [work] = await getMany(filter);
			const expected = target
				.users()
				.filter((user) =>
					(user.emails as IDataObject[]).some(
						(entry) =>
							entry.type === 'work' &&
							String(entry.value).startsWith(prefix) &&
							entry.primary === true,
					),
				);
			expect(expected.length).toBeGreaterThan(0);
			expect(ids(work)).toEqual(expected.map((user) => user.id));
			expect(filters().slice(-1)).toEqual([filter]);
		});

		test('an attribute the node does not know passes with a notice; the server judges it', async () => {
			const hints: NodeExecutionHint[] = [];
			const result = await getMany('department eq "Finance" and active eq true', hints).then(
				([items]) => ({ items }),
				(error: Error & { description?: string }) => ({ error }),
			);
			expect(hints).toEqual([
				{
					message: `Filter Expression, column 1: 'department' is an attribute of a schema extension, which RFC 7644 names in full: ${ENTERPRISE_USER}:department; sent as written, the server decides`,
					type: 'info',
					location: 'outputPane',
				},
			]);
			expect(filters()).toEqual(['department eq "Finance" and active eq true']);
			if (target === SANDBOX) {
				// the sandbox refuses an attribute it does not know, as the service does
				expect('error' in result && result.error.message).toBe(
					"Could not list users: the server refused the filter (invalidFilter): The filter is not valid: column 1: unknown attribute 'department' [item 0]",
				);
			} else {
				// SCIMMY looks `department` up at the top of the user, where no user has it
				expect(result).toEqual({ items: [] });
			}
		});

		test('no value can reshape the filter; text that is not a filter is refused before sending', async () => {
			const sneaky = 'x" or userName pr or userName eq "y';
			const answer = await getMany(`userName eq ${JSON.stringify(sneaky)}`).then(
				([items]) => items.length,
				(error: Error) => error.message,
			);
			// one value, escaped: the sandbox finds no such user name; SCIMMY cannot parse an escaped
			// quote (a departure from RFC 7644) and refuses the filter, which the node reports
			expect(answer).toBe(
				target === SANDBOX
					? 0
					: `Could not list users: the server refused the filter (invalidFilter): Unexpected token '\\"y"' in filter [item 0]`,
			);
			expect(filters()).toEqual([`userName eq ${JSON.stringify(sneaky)}`]);
			target.recorder().clear();
			for (const [text, message] of [
				['title co "x" or', 'column 16: expected an attribute name, found end of input'],
				[
					'urn:ietf:params:scim:schemas:core:2.0:User: eq 1',
					"expected an attribute name after the schema URI 'urn:ietf:params:scim:schemas:core:2.0:User'",
				],
				['active eq "yes"', "'active' is a true/false attribute"],
				['emails[value eq "a" or userName pr', "expected ']' to close"],
			]) {
				await expect(getMany(text)).rejects.toThrow(message);
			}
			expect(userCalls()).toEqual([]);
		});
	});

	describe('4. Paging checks what the server answers', () => {
		const all = (pageSize: number) =>
			run({ operation: 'getAll', returnAll: true, options: { pageSize } });
		const page = (users: IDataObject[], extra: IDataObject) => ({
			status: 200,
			body: { schemas: [LIST_RESPONSE], Resources: users, ...extra },
		});

		test('a server that pages right is read whole; a page that does not start at the startIndex asked for is an error, not the same users again', async () => {
			const [items] = await all(30);
			const users = target.users();
			expect(ids(items)).toEqual(users.map((user) => user.id));
			expect(userCalls().map((call) => call.query.startIndex)).toEqual(
				Array.from({ length: Math.ceil(users.length / 30) }, (_, i) => String(1 + i * 30)),
			);
			target.recorder().answerNext(
				USERS,
				page(users.slice(0, 20), {
					totalResults: users.length,
					itemsPerPage: 20,
					startIndex: 1,
				}),
				1,
			);
			await expect(all(20)).rejects.toThrow(
				'Could not list users: the server did not answer the page asked for: it answered startIndex 1 to a request for startIndex 21 [item 0]',
			);
		});

		test('a page that repeats users already output is an error, even at the startIndex asked for', async () => {
			const users = target.users();
			target.recorder().answerNext(
				USERS,
				page(users.slice(10, 30), {
					totalResults: users.length,
					itemsPerPage: 20,
					startIndex: 21,
				}),
				1,
			);
			await expect(all(20)).rejects.toThrow(
				`Could not list users: the server answered the user ${String(users[10].id)} twice (on the pages at startIndex 1 and 21) [item 0]`,
			);
		});

		test('itemsPerPage and totalResults must add up; an empty page before the end is an error, not the end', async () => {
			const users = target.users();
			const cases: Array<[IDataObject, string]> = [
				[
					page(users.slice(20, 40), {
						totalResults: users.length,
						itemsPerPage: 25,
						startIndex: 21,
					}),
					`its itemsPerPage is 25 but it holds 20 users and totalResults (${users.length}) says more follow`,
				],
				[
					page(users.slice(20, 40), { totalResults: 30, itemsPerPage: 20, startIndex: 21 }),
					'it holds users 21 to 40, past its totalResults of 30',
				],
				[
					page([], { totalResults: users.length, itemsPerPage: 0, startIndex: 21 }),
					`it holds no users at startIndex 21, though its totalResults is ${users.length}`,
				],
			];
			for (const [reply, problem] of cases) {
				target.recorder().clear();
				target.recorder().answerNext(USERS, reply as never, 1);
				await expect(all(20)).rejects.toThrow(
					`Could not list users: the server did not answer the page asked for: ${problem} [item 0]`,
				);
			}
		});
	});

	describe('5. SCIM media type and SCIM errors', () => {
		test('every users request asks for application/scim+json', async () => {
			const user = loginUser(target);
			await run({ operation: 'getAll', limit: 30, options: { pageSize: 20 } });
			await run({ operation: 'get', user: idLocator(String(user.id)) });
			await run({ operation: 'get', user: emailLocator(emailOf(user)) });
			expect(userCalls().length).toBe(4);
			expect(userCalls().map((call) => call.accept)).toEqual(Array(4).fill(SCIM_ACCEPT));
		});

		test("invalidFilter: the server's scimType and detail, and what to do", async () => {
			// each server's own refusal: the sandbox of an attribute it does not know, SCIMMY of an
			// escaped quote (which RFC 7644 allows and SCIMMY cannot parse)
			const filter = target === SANDBOX ? 'costCentre eq "B-12"' : 'title eq "a\\"b"';
			const error = await errorOf(
				run({ operation: 'getAll', filterMode: 'expression', filterExpression: filter }),
			);
			expect(error?.message).toMatch(
				/^Could not list users: the server refused the filter \(invalidFilter\): .+ \[item 0\]$/,
			);
			expect(error?.message).toContain(
				target === SANDBOX ? "unknown attribute 'costCentre'" : "Unexpected token 'b\"' in filter",
			);
			expect(error?.description).toBe(
				'The server could not read the filter, or does not support an attribute or operator in it. Check the Filter Expression (or the conditions), try a simpler filter (one attribute with eq), or see which filters the server supports.\n(HTTP 400, scimType invalidFilter)',
			);
		});

		test('tooMany and uniqueness say what to do', async () => {
			const answers: Array<[number, string, string, string, string]> = [
				[
					400,
					'tooMany',
					'Too many users match',
					'the filter matches more users than the server is willing to return (tooMany): Too many users match',
					'Narrow the filter (more conditions, or more precise values) so fewer users match.',
				],
				[
					409,
					'uniqueness',
					'userName is taken',
					'a value that must be unique is already in use (uniqueness): userName is taken',
					'Another user already holds a value that must be unique (such as the userName or externalId): use another value, or change the user that holds it.',
				],
			];
			for (const [status, scimType, detail, said, advice] of answers) {
				target.recorder().answerNext(USERS, {
					status,
					body: { schemas: [SCIM_ERROR], status: String(status), scimType, detail },
				});
				const error = await errorOf(run({ operation: 'getAll', limit: 5 }));
				expect(error?.message).toBe(`Could not list users: ${said} [item 0]`);
				expect(error?.description).toBe(`${advice}\n(HTTP ${status}, scimType ${scimType})`);
			}
		});
	});
});

describe('where SCIMMY departs from RFC 7644, the node reports what SCIMMY answered', () => {
	const run = (
		server: { credential: CredentialInput | CredentialStore },
		parameters: IDataObject,
		extra: { input?: IDataObject[] } = {},
	) =>
		runNode(node, {
			parameters: parameters as INodeParameters,
			credential: server.credential,
			...extra,
		});

	beforeEach(() => scimmy.reset());

	test('SCIMMY matches userName and emails case-sensitively (caseExact is false): an address in capitals finds no one, where the sandbox finds the user', async () => {
		const user = scimmy.users[3];
		const shouted = emailOf(user).toUpperCase();
		await expect(run(scimmy, { operation: 'get', user: emailLocator(shouted) })).rejects.toThrow(
			`No user has the e-mail address ${shouted}`,
		);
		// the node asked as RFC 7644 has it, in both places; SCIMMY's answer is empty
		expect(
			scimmy
				.calls()
				.filter((call) => call.path === USERS)
				.map((call) => [call.query.filter, call.status]),
		).toEqual([
			[
				`userName eq ${JSON.stringify(shouted)} or emails[value eq ${JSON.stringify(shouted)}]`,
				200,
			],
		]);
		const inSandbox = sandbox.store.users.all()[3];
		const [[found]] = await run(
			{ credential: sandboxCredentialInput(sandbox) },
			{ operation: 'get', user: emailLocator(emailOf(inSandbox).toUpperCase()) },
		);
		expect(found.json.id).toBe(inSandbox.id);
	});

	test('SCIMMY cannot parse an escaped quote: its invalidFilter is the error, in both requests Get By Email makes', async () => {
		const address = 'o"brien@example.org';
		const error = await errorOf(run(scimmy, { operation: 'get', user: emailLocator(address) }));
		expect(error?.message).toBe(
			`Could not find the user ${address}: the server refused the filter (invalidFilter): Unexpected token 'brien@example.org"' in filter [item 0]`,
		);
		expect(
			scimmy
				.calls()
				.filter((call) => call.path === USERS)
				.map((call) => [call.query.filter, call.status]),
		).toEqual([
			[`userName eq "o\\"brien@example.org" or emails[value eq "o\\"brien@example.org"]`, 400],
			['userName eq "o\\"brien@example.org"', 400],
		]);
	});

	test('SCIMMY fails a filter over an attribute some users lack: Get By Email falls back to userName where it can, and otherwise reports it', async () => {
		delete scimmy.users[100].emails;
		const named = scimmy.users.find((user) => String(user.userName).includes('@'))!;
		const [[found]] = await run(scimmy, {
			operation: 'get',
			user: emailLocator(String(named.userName)),
		});
		// found by the userName request alone; the user's emails hold the address too
		expect(found.json).toMatchObject({ id: named.id, matchedBy: 'userName and emails' });
		expect(
			scimmy
				.calls()
				.filter((call) => call.path === USERS)
				.map((call) => [call.query.filter?.split(' ')[0], call.status]),
		).toEqual([
			['userName', 400],
			['userName', 200],
			['emails[value', 400],
		]);
		const login = scimmy.users.find((user) => !String(user.userName).includes('@'))!;
		const error = await errorOf(
			run(scimmy, { operation: 'get', user: emailLocator(emailOf(login)) }),
		);
		expect(error?.message).toBe(
			`Could not find the user ${emailOf(login)}: the server refused the request (invalidValue): Cannot convert undefined or null to object [item 0]`,
		);
	});

	test('SCIMMY fails `emails co "…"`, which RFC 7644 reads as the emails’ values; the sandbox answers it', async () => {
		const filterExpression = 'emails co "grace."';
		const error = await errorOf(
			run(scimmy, {
				operation: 'getAll',
				returnAll: true,
				filterMode: 'expression',
				filterExpression,
			}),
		);
		expect(error?.message).toBe(
			"Could not list users: the server refused the request (invalidValue): Cannot read properties of undefined (reading 'toLowerCase') [item 0]",
		);
		const [items] = await run(
			{ credential: sandboxCredentialInput(sandbox) },
			{ operation: 'getAll', returnAll: true, filterMode: 'expression', filterExpression },
		);
		const expected = sandbox.store.users
			.all()
			.filter((user) => emailOf(user).includes('grace.'))
			.map((user) => user.id);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(items)).toEqual(expected);
	});

	test('scimmy-routers on Express 5 as shipped ignores startIndex: an error, not 260 items of 20 users', async () => {
		const asShipped = await createScimmyServer(seedScimmyUsers(250), { pagingAsShipped: true });
		try {
			const error = await errorOf(
				run(asShipped, { operation: 'getAll', returnAll: true, options: { pageSize: 20 } }),
			);
			expect(error?.message).toBe(
				'Could not list users: the server did not answer the page asked for: it answered startIndex 1 to a request for startIndex 21 [item 0]',
			);
			expect(error?.description).toContain("SCIMMY's Express routers do on Express 5");
			expect(
				asShipped
					.calls()
					.filter((call) => call.path === USERS)
					.map((call) => call.query.startIndex),
			).toEqual(['1', '21']);
		} finally {
			await asShipped.close();
		}
	});

	test('a SCIMMY server that refuses `or` and one that refuses too many matches', async () => {
		const strict = await createScimmyServer(seedScimmyUsers(60), {
			refuseOr: true,
			maxResults: 40,
		});
		try {
			const login = strict.users.find((user) => !String(user.userName).includes('@'))!;
			const [[found]] = await run(strict, { operation: 'get', user: emailLocator(emailOf(login)) });
			expect(found.json).toMatchObject({ id: login.id, matchedBy: 'emails' });
			expect(
				strict
					.calls()
					.filter((call) => call.path === USERS)
					.map((call) => call.status),
			).toEqual([400, 200, 200]);
			const error = await errorOf(
				run(strict, {
					operation: 'getAll',
					returnAll: true,
					filterMode: 'expression',
					filterExpression: 'active eq true',
				}),
			);
			expect(error?.message).toMatch(
				/^Could not list users: the filter matches more users than the server is willing to return \(tooMany\): The filter matches \d+ users; this server returns at most 40 \[item 0\]$/,
			);
			expect(error?.description).toBe(
				'Narrow the filter (more conditions, or more precise values) so fewer users match.\n(HTTP 413, scimType tooMany)',
			);
		} finally {
			await strict.close();
		}
	});
});

describe('the node as the editor checks it', () => {
	const issuesFor = (user: IDataObject) => {
		const properties = node.description.properties;
		const definition: INode = {
			id: 'u',
			name: 'Stockroom User',
			type: 'n8n-nodes-stockroom.stockroomUser',
			typeVersion: 1,
			position: [0, 0],
			parameters: NodeHelpers.getNodeParameters(
				properties,
				{ operation: 'get', user } as INodeParameters,
				true,
				false,
				null,
				null,
			)!,
		};
		return NodeHelpers.getNodeParametersIssues(properties, definition, node.description);
	};

	test('By ID takes any text: a UUID gives the node no issue; the service’s form is a hint', () => {
		expect(issuesFor(idLocator('f81d4fae-7dec-11d0-a765-00a0c91e6bf6'))).toBeNull();
		const mode = node.description.properties
			.find((property) => property.name === 'user')!
			.modes!.find((candidate) => candidate.name === 'id')!;
		expect(mode.hint).toContain('32 hexadecimal characters');
		expect(mode.validation).toBeUndefined();
	});

	test('externalId: the Filter Expression takes it, the builder keeps its list and refuses it before sending', async () => {
		const credential = new CredentialStore(sandboxCredentialInput(sandbox));
		sandbox.resetStats();
		await expect(
			runNode(node, {
				parameters: {
					operation: 'getAll',
					filterMode: 'manual',
					conditions: { condition: [{ field: 'externalId', operator: 'notEmpty' }] },
				} as INodeParameters,
				credential,
			}),
		).rejects.toThrow("Filter condition 1 (externalId): unknown attribute 'externalId'");
		expect(sandbox.journal().filter((entry) => entry.path.startsWith('/api/'))).toEqual([]);
		const [items] = await runNode(node, {
			parameters: {
				operation: 'getAll',
				filterMode: 'expression',
				filterExpression: 'externalId pr',
			} as INodeParameters,
			credential,
		});
		expect(items).toEqual([]);
		expect(
			sandbox
				.journal()
				.filter((entry) => entry.path === USERS)
				.map((entry) => [entry.query.filter, entry.status]),
		).toEqual([['externalId pr', 200]]);
	});
});
