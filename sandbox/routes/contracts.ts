import { contractSchema } from '../../nodes/shared/schema/contract';
import { readJson } from '../body';
import { notFound } from '../problems';
import { findContract, putContract } from '../records/contract';
import type { ApiRoute, SandboxContext } from '../router';
import type { StoredRecord } from '../store';
import { listRecords, noContent, ok, writeContextOf } from './common';

const searchable = (contract: StoredRecord): unknown[] => [
	contract.externalId,
	contract.ref,
	contract.vendorName,
	contract.notes,
	...(Array.isArray(contract.lineItems)
		? contract.lineItems.map((item) => (item as Record<string, unknown>).description)
		: []),
];

/** `/api/contracts/v1`: list, PUT, and get or delete by id or externalId. */
export function contractRoutes({ store, clock, cursors }: SandboxContext): ApiRoute[] {
	const find = (key: string): StoredRecord => {
		const contract = findContract(store.contracts, key);
		if (!contract) throw notFound(`No contract has the id or externalId '${key}'.`);
		return contract;
	};
	return [
		{
			method: 'GET',
			path: '/api/contracts/v1',
			scope: 'Contracts.Read',
			handle: (request) =>
				listRecords(request, store.contracts, contractSchema, searchable, cursors),
		},
		{
			method: 'PUT',
			path: '/api/contracts/v1',
			scope: 'Contracts.Write',
			handle: async (request) =>
				ok(
					putContract(
						store.contracts,
						await readJson(request.req),
						writeContextOf(request, store, clock),
					),
				),
		},
		{
			method: 'GET',
			path: '/api/contracts/v1/{id}',
			scope: 'Contracts.Read',
			handle: ({ params }) => ok(find(params.id)),
		},
		{
			method: 'DELETE',
			path: '/api/contracts/v1/{id}',
			scope: 'Contracts.Write',
			handle: ({ params }) => {
				store.contracts.delete(find(params.id).id);
				return noContent;
			},
		},
	];
}
