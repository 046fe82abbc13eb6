import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import { buildFilter, printFilter } from '../../shared/filter';
import { InvalidItemError } from '../../shared/runItems';
import { userSchema } from '../../shared/schema/user';
import {
	optionsProperty,
	readRetryPolicy,
	simplifyFor,
	simplifyProperties,
} from '../../shared/descriptions/common';
import { idPattern, recordLocator } from '../../shared/descriptions/locators';
import { showFor } from '../../shared/descriptions/showFor';
import { USERS_PATH } from '../../shared/resources';
import { apiRequest, type RetryPolicy } from '../../shared/transport';

const properties: INodeProperties[] = [
	recordLocator({
		noun: 'User',
		searchListMethod: 'searchUsers',
		idLength: 32,
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
	if (!new RegExp(idPattern(32)).test(value))
		throw new Error(`User: "${value}" is not a user ID (32 hexadecimal characters)`);
	return { id: value, retry };
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export async function execute(
	this: IExecuteFunctions,
	prepared: Prepared,
	i: number,
): Promise<IDataObject[]> {
	const { retry } = prepared;
	const simplified = simplifyFor(this, i, userSchema);
	if ('id' in prepared) {
		return simplified([
			await apiRequest.call(this, 'GET', `${USERS_PATH}/${prepared.id}`, {
				operation: `get user ${prepared.id}`,
				answer: 'record',
				itemIndex: i,
				retry,
			}),
		]);
	}
	// the user name is the e-mail address; the filter is built, so the address is always one value
	const filter = printFilter(
		buildFilter(
			{ match: 'all', conditions: [{ field: 'userName', operator: 'eq', value: prepared.email }] },
			userSchema,
		)!,
	);
	const page = (await apiRequest.call(this, 'GET', USERS_PATH, {
		qs: { filter, startIndex: 1, count: 2 },
		operation: `find the user ${prepared.email}`,
		answer: 'users',
		itemIndex: i,
		retry,
	})) as { Resources?: IDataObject[] };
	const [user] = page.Resources ?? [];
	if (!user) {
		throw new NodeOperationError(
			this.getNode(),
			`No user has the e-mail address ${prepared.email}`,
			{
				itemIndex: i,
				description:
					'The service matched no user name to it. Check the address, or pick the user from the list.',
			},
		);
	}
	return simplified([user]);
}
