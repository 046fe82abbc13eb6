import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import { any, compare, printFilter, type FilterNode } from '../../shared/filter';
import { InvalidItemError, type ExecutionCache } from '../../shared/runItems';
import { userSchema } from '../../shared/schema/user';
import {
	optionsProperty,
	readRetryPolicy,
	simplifyFor,
	simplifyProperties,
} from '../../shared/descriptions/common';
import { recordLocator } from '../../shared/descriptions/locators';
import { showFor } from '../../shared/descriptions/showFor';
import { recordLabel, USERS_PATH } from '../../shared/resources';
import { apiRequest, type RetryPolicy } from '../../shared/transport';

const properties: INodeProperties[] = [
	recordLocator({
		noun: 'User',
		searchListMethod: 'searchUsers',
		idHint:
			"The server's ID of the user: the service's are 32 hexadecimal characters; another SCIM server may use any text, such as a UUID",
		idPlaceholder: '2819c223f4a54c2a8a1b2c3d4e5f6a7b',
		emailPlaceholder: 'e.g. ada.lovelace@example.com',
	}),
	...simplifyProperties(userSchema),
	optionsProperty(),
];

export const description = showFor(['get'], properties);

/** The user by ID, or by the e-mail address assets and contracts name people by. */
type Prepared = { retry: RetryPolicy } & ({ id: string } | { email: string });

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const locator = this.getNodeParameter('user', i, {}) as { mode?: string; value?: unknown };
	const value = String(
		this.getNodeParameter('user', i, '', { extractValue: true }) ?? locator.value ?? '',
	).trim();
	const retry = readRetryPolicy(this.getNodeParameter('options', i, {}) as IDataObject);
	if (locator.mode === 'email') {
		if (!EMAIL.test(value))
			throw new InvalidItemError('parameter', [
				{
					path: 'User (By Email)',
					message: `expected an e-mail address, got ${JSON.stringify(value)}`,
				},
			]);
		return { email: value, retry };
	}
	// RFC 7643 §3.1: the server chooses its IDs, any text; it is sent as one path segment
	if (value === '') throw new Error('User: enter the user ID');
	if (value === '.' || value === '..')
		throw new Error(`User: the ID "${value}" cannot be used in a URL path`);
	return { id: value, retry };
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** Which of a user's attributes hold the address (compared as RFC 7643 does: caseExact false). */
type MatchedBy = 'userName' | 'emails' | 'userName and emails';

/** Whether the server refused a filter with `or` in this execution: later items ask twice. */
const OR_REFUSED = 'stockroomUser:orRefused';

export async function execute(
	this: IExecuteFunctions,
	prepared: Prepared,
	i: number,
	cache: ExecutionCache = new Map(),
): Promise<IDataObject[]> {
	const { retry } = prepared;
	const simplified = simplifyFor(this, i, userSchema);
	if ('id' in prepared) {
		return simplified([
			await apiRequest.call(this, 'GET', `${USERS_PATH}/${encodeURIComponent(prepared.id)}`, {
				operation: `get user ${prepared.id}`,
				answer: 'record',
				itemIndex: i,
				retry,
			}),
		]);
	}
	const { user, matchedBy } = await findByEmail.call(this, prepared.email, i, retry, cache);
	const [output] = simplified([user]);
	return [{ ...output, matchedBy }];
}

/**
 * The one user whose `userName` or one of whose `emails[].value` is the address. One request
 * asks for both (`userName eq "a" or emails[value eq "a"]`); a server that refuses it (`or` is
 * optional in practice) is asked for each. Every user the server answers is checked to hold the
 * address, so a server that ignores a filter is not taken at its word.
 */
async function findByEmail(
	this: IExecuteFunctions,
	address: string,
	i: number,
	retry: RetryPolicy,
	cache: ExecutionCache,
): Promise<{ user: IDataObject; matchedBy: MatchedBy }> {
	const byUserName = compare('userName', 'eq', address);
	const byEmail: FilterNode = {
		kind: 'valuePath',
		attribute: 'emails',
		filter: compare('value', 'eq', address),
		position: 0,
	};
	const search = async (filter: FilterNode) =>
		(await apiRequest.call(this, 'GET', USERS_PATH, {
			qs: { filter: printFilter(filter), startIndex: 1, count: 10 },
			operation: `find the user ${address}`,
			answer: 'users',
			itemIndex: i,
			retry,
		})) as { Resources?: IDataObject[] };

	let answered: IDataObject[] | undefined;
	if (!cache.has(OR_REFUSED)) {
		try {
			answered = (await search(any(byUserName, byEmail)!)).Resources ?? [];
		} catch (caught) {
			const error = asNodeError(this, caught, i);
			if (!isRefusedFilter(error)) throw error;
			cache.set(OR_REFUSED, Promise.resolve(true));
			this.logger.debug(
				`Stockroom: the server refused a filter with 'or' (${(error as Error).message}); asking for userName and emails one at a time`,
			);
		}
	}
	if (answered === undefined) {
		const byName = (await search(byUserName)).Resources ?? [];
		let byAddress: IDataObject[];
		try {
			byAddress = (await search(byEmail)).Resources ?? [];
		} catch (caught) {
			// a server that cannot filter on emails: the user name alone answers, if it can
			const error = asNodeError(this, caught, i);
			if (!isRefusedFilter(error) || !byName.some((user) => holds(user, address))) throw error;
			byAddress = [];
		}
		answered = [...byName, ...byAddress];
	}

	const found = new Map<string, { user: IDataObject; matchedBy: MatchedBy }>();
	for (const user of answered) {
		const matchedBy = holds(user, address);
		if (matchedBy && !found.has(String(user.id))) found.set(String(user.id), { user, matchedBy });
	}
	const matches = [...found.values()];
	if (matches.length === 1) return matches[0];
	if (matches.length > 1) {
		const names = matches.map(
			({ user, matchedBy }) => `${recordLabel(user)} (ID ${String(user.id)}, by ${matchedBy})`,
		);
		throw new NodeOperationError(
			this.getNode(),
			`${matches.length} users have the e-mail address ${address}: ${names.join(' and ')}`,
			{
				itemIndex: i,
				description:
					'An address must name one person. Pick the user by ID instead, or correct the directory so that one user holds the address.',
			},
		);
	}
	if (answered.length) {
		throw new NodeOperationError(
			this.getNode(),
			`Could not find the user ${address}: the server answered users who do not have the address (${answered
				.slice(0, 2)
				.map((user) => recordLabel(user))
				.join(', ')})`,
			{
				itemIndex: i,
				description:
					'The server did not apply the filter on userName and emails as RFC 7644 says (it may ignore filters). Pick the user by ID instead.',
			},
		);
	}
	throw new NodeOperationError(this.getNode(), `No user has the e-mail address ${address}`, {
		itemIndex: i,
		description:
			'The server matched no user whose userName or emails hold it. Check the address, or pick the user from the list.',
	});
}

/** Whether the user holds the address, and where: RFC 7643 makes both caseExact false. */
function holds(user: IDataObject, address: string): MatchedBy | undefined {
	const wanted = address.toLowerCase();
	const same = (value: unknown) => typeof value === 'string' && value.toLowerCase() === wanted;
	const inUserName = same(user.userName);
	const inEmails =
		Array.isArray(user.emails) &&
		user.emails.some((entry) => typeof entry === 'object' && entry !== null && same(entry.value));
	if (inUserName && inEmails) return 'userName and emails';
	return inUserName ? 'userName' : inEmails ? 'emails' : undefined;
}

/** An error as n8n shows it (the transport's are already). */
const asNodeError = (
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError =>
	error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(context.getNode(), error as Error, { itemIndex });

/** A 400 (or 501) answer to a search: the server will not filter this way. */
const isRefusedFilter = (error: unknown): boolean =>
	error instanceof NodeApiError && (error.httpCode === '400' || error.httpCode === '501');
