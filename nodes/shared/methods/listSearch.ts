import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { buildFilter, printFilter } from '../filter';
import { ASSETS_PATH, CONTRACTS_PATH, USERS_PATH, recordLabel } from '../resources';
import { userSchema } from '../schema/user';
import { apiRequest, EDITOR_RETRY } from '../transport';

const PAGE = 50;

async function searchList(
	this: ILoadOptionsFunctions,
	path: string,
	noun: string,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = (await apiRequest.call(this, 'GET', paginationToken ?? path, {
		qs: paginationToken ? undefined : { limit: PAGE, ...(filter ? { q: filter } : {}) },
		operation: `search ${noun}s`,
		answer: 'list',
		retry: EDITOR_RETRY,
	})) as { results?: IDataObject[]; next?: string };
	return {
		results: (page.results ?? []).map((record) => ({
			name: recordLabel(record),
			value: String(record.id),
		})),
		paginationToken: page.next,
	};
}

export async function searchAssets(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchList.call(this, ASSETS_PATH, 'asset', filter, paginationToken);
}

export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchList.call(this, CONTRACTS_PATH, 'contract', filter, paginationToken);
}

export async function searchUsers(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const startIndex = Number(paginationToken ?? 1);
	const tree = filter
		? buildFilter(
				{
					match: 'any',
					conditions: ['userName', 'displayName', 'name.familyName'].map((field) => ({
						field,
						operator: 'co' as const,
						value: filter,
					})),
				},
				userSchema,
			)
		: undefined;
	const page = (await apiRequest.call(this, 'GET', USERS_PATH, {
		qs: { startIndex, count: PAGE, ...(tree ? { filter: printFilter(tree) } : {}) },
		operation: 'search users',
		answer: 'users',
		retry: EDITOR_RETRY,
	})) as { Resources?: IDataObject[]; totalResults?: number };
	const resources = page.Resources ?? [];
	const next = startIndex + resources.length;
	return {
		results: resources.map((user) => ({ name: recordLabel(user), value: String(user.id) })),
		paginationToken:
			resources.length && next <= (page.totalResults ?? 0) ? String(next) : undefined,
	};
}
