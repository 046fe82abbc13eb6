import { assetSchema } from '../../nodes/shared/schema/asset';
import { readJson } from '../body';
import { notFound } from '../problems';
import { patchAsset, putAsset } from '../records/asset';
import type { ApiRoute, SandboxContext } from '../router';
import type { StoredRecord } from '../store';
import { listRecords, noContent, ok, writeContextOf } from './common';

const searchable = (asset: StoredRecord): unknown[] => [
	asset.deviceName,
	asset.externalId,
	asset.serialNumber,
	asset.assetTag,
	asset.hardwareVendor,
	asset.assetType,
	asset.notes,
	asset.assignedToEmail,
	asset.platform,
];

/** `/api/assets/v1`: list, get, PUT (both routes), PATCH, DELETE, custom field definitions. */
export function assetRoutes({ store, clock, cursors }: SandboxContext): ApiRoute[] {
	const writes = { table: store.assets, users: store.users };
	const find = (id: string): StoredRecord => {
		const asset = store.assets.get(id);
		if (!asset) throw notFound(`No asset has the id '${id}'.`);
		return asset;
	};
	const read = 'Assets.Read';
	const write = 'Assets.Write';
	return [
		{
			method: 'GET',
			path: '/api/assets/v1',
			scope: read,
			handle: (request) => listRecords(request, store.assets, assetSchema, searchable, cursors),
		},
		{
			method: 'PUT',
			path: '/api/assets/v1',
			scope: write,
			handle: async (request) =>
				ok(putAsset(writes, await readJson(request.req), writeContextOf(request, store, clock))),
		},
		{
			method: 'GET',
			path: '/api/assets/v1/customfields',
			scope: read,
			handle: () => ok({ results: store.customFieldDefinitions }),
		},
		{
			method: 'GET',
			path: '/api/assets/v1/{id}',
			scope: read,
			handle: ({ params }) => ok(find(params.id)),
		},
		{
			method: 'PUT',
			path: '/api/assets/v1/{id}',
			scope: write,
			handle: async (request) =>
				ok(
					putAsset(
						writes,
						await readJson(request.req),
						writeContextOf(request, store, clock),
						request.params.id,
					),
				),
		},
		{
			method: 'PATCH',
			path: '/api/assets/v1/{id}',
			scope: write,
			handle: async (request) =>
				ok(
					patchAsset(
						writes,
						request.params.id,
						await readJson(request.req),
						writeContextOf(request, store, clock),
					),
				),
		},
		{
			method: 'DELETE',
			path: '/api/assets/v1/{id}',
			scope: write,
			handle: ({ params }) => {
				store.assets.delete(find(params.id).id);
				return noContent;
			},
		},
	];
}
