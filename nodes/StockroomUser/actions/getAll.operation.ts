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
import type { ExecutionCache } from '../../shared/runItems';
import { USERS_PATH } from '../../shared/resources';
import { scimUserFilterSchema, userSchema } from '../../shared/schema/user';
import { collect, paginateScim, type RetryPolicy } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperties(userSchema),
	...filterProperties(userSchema, {
		resourceLabel: 'users (SCIM filter)',
		expressionNote:
			'Any attribute RFC 7643 defines may be named, also qualified with its schema (urn:ietf:params:scim:schemas:core:2.0:User:active) or from the enterprise extension (urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department); an attribute the node does not know is sent as written, with a notice.',
	}),
	optionsProperty(pageSizeOption('Users (SCIM count)', 100)),
];

export const description = showFor(['getAll'], properties);

interface Prepared {
	qs: IDataObject;
	/** What the node could not check in the filter: shown in the output pane. */
	notices: string[];
	limit?: number;
	pageSize: number;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const notices: string[] = [];
	const filter = await readFilter(userSchema, {
		getParameter: (name, fallback) => this.getNodeParameter(name, i, fallback),
		timezone: this.getTimezone(),
		// the builder keeps its list; an expression may name any SCIM attribute
		expressionSchema: scimUserFilterSchema,
		onNotice: (notice) => notices.push(notice),
	});
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	return {
		qs: filter ? { filter: printFilter(filter) } : {},
		notices,
		limit: returnAll ? undefined : (this.getNodeParameter('limit', i, 50) as number),
		pageSize: Number(options.pageSize ?? 100),
		retry: readRetryPolicy(options),
	};
}

export async function execute(
	this: IExecuteFunctions,
	request: Prepared,
	i: number,
	cache: ExecutionCache = new Map(),
): Promise<IDataObject[]> {
	for (const notice of request.notices) {
		// the same filter for every item is one notice
		if (cache.has(`notice:${notice}`)) continue;
		cache.set(`notice:${notice}`, Promise.resolve(notice));
		this.addExecutionHints({ message: notice, type: 'info', location: 'outputPane' });
	}
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
