import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	optionsProperty,
	pageSizeOption,
	readRetryPolicy,
	returnAllOrLimit,
	simplifyFor,
	simplifyProperties,
} from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { showFor } from '../../shared/descriptions/showFor';
import { printFilter } from '../../shared/filter';
import { readFilter } from '../../shared/filterInput';
import { USERS_PATH } from '../../shared/resources';
import { userSchema } from '../../shared/schema/user';
import { collect, paginateScim, type RetryPolicy } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperties(userSchema),
	...filterProperties(userSchema, { resourceLabel: 'users (SCIM filter)' }),
	optionsProperty(pageSizeOption('Users (SCIM count)', 100)),
];

export const description = showFor(['getAll'], properties);

interface Prepared {
	qs: IDataObject;
	limit?: number;
	pageSize: number;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const filter = await readFilter(userSchema, {
		getParameter: (name, fallback) => this.getNodeParameter(name, i, fallback),
		timezone: this.getTimezone(),
	});
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	return {
		qs: filter ? { filter: printFilter(filter) } : {},
		limit: returnAll ? undefined : (this.getNodeParameter('limit', i, 50) as number),
		pageSize: Number(options.pageSize ?? 100),
		retry: readRetryPolicy(options),
	};
}

export async function execute(
	this: IExecuteFunctions,
	request: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return simplifyFor(
		this,
		i,
		userSchema,
	)(
		await collect(
			paginateScim.call(this, USERS_PATH, request.qs, {
				operation: 'list users',
				limit: request.limit,
				pageSize: request.pageSize,
				itemIndex: i,
				retry: request.retry,
			}),
		),
	);
}
