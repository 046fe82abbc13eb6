import { scimUserFilterSchema } from '../../nodes/shared/schema/user';
import { compileQueryFilter } from '../filtering';
import { Answer, scimError } from '../problems';
import type { ApiRoute, SandboxContext } from '../router';
import { ok } from './common';

const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/**
 * What a filter may name: the attributes RFC 7643 gives a user (also qualified with their
 * schema's URI, RFC 7644 §3.10); any other attribute is refused with `invalidFilter`, as the
 * service refuses an unknown attribute (service-behaviour.md §6).
 */
const FILTERABLE = { ...scimUserFilterSchema, openAttributes: false };

/** A SCIM integer parameter; RFC 7644 §3.4.2.4 reads values below the minimum as the minimum. */
function integerParam(
	query: URLSearchParams,
	name: string,
	fallback: number,
	minimum: number,
): number {
	const text = query.get(name);
	if (text === null || text === '') return fallback;
	if (!/^\s*-?\d+\s*$/.test(text)) {
		throw new Answer(
			scimError(400, `${name} must be a whole number, got "${text}".`, 'invalidValue'),
		);
	}
	return Math.max(minimum, Number(text));
}

/** `/api/scim/v2/Users`: list (`startIndex`, `count`, `filter`) and get. */
export function userRoutes({ store }: SandboxContext): ApiRoute[] {
	return [
		{
			method: 'GET',
			path: '/api/scim/v2/Users',
			scope: 'Users.Read',
			scim: true,
			handle: ({ url }) => {
				const query = url.searchParams;
				const startIndex = integerParam(query, 'startIndex', 1, 1);
				const count = integerParam(query, 'count', 100, 0);
				const filter = compileQueryFilter(query.get('filter'), FILTERABLE);
				if (filter.error !== undefined) {
					throw new Answer(
						scimError(400, `The filter is not valid: ${filter.error}`, 'invalidFilter'),
					);
				}
				const matching = filter.predicate
					? store.users.all().filter(filter.predicate)
					: store.users.all();
				const resources = matching.slice(startIndex - 1, startIndex - 1 + count);
				return ok({
					schemas: [LIST_RESPONSE],
					totalResults: matching.length,
					itemsPerPage: resources.length,
					startIndex,
					Resources: resources,
				});
			},
		},
		{
			method: 'GET',
			path: '/api/scim/v2/Users/{id}',
			scope: 'Users.Read',
			scim: true,
			handle: ({ params }) => {
				const user = store.users.get(params.id);
				if (!user) throw new Answer(scimError(404, `Resource ${params.id} not found.`));
				return ok(user);
			},
		},
	];
}
