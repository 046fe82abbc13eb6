import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { getAssetCustomFields, getAssetFilterFields } from '../shared/methods/loadOptions';
import { searchAssets } from '../shared/methods/listSearch';
import { getAssetMappingColumns, getAssetSyncColumns } from '../shared/methods/resourceMapping';
import { createRouter } from '../shared/runItems';
import { operations, properties } from './actions';
import { requireSupportedN8n } from '../shared/supportedN8n';

requireSupportedN8n();

export class StockroomAsset implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stockroom Asset',
		name: 'stockroomAsset',
		icon: { light: 'file:../../icons/stockroom.svg', dark: 'file:../../icons/stockroom.dark.svg' },
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ { applyPlan: "Apply Sync Plan", upsert: "Create or Update", delete: "Delete", get: "Get", getAll: "Get Many", sync: "Sync", update: "Update" }[$parameter["operation"]] }}',
		description:
			"Read and write hardware assets: list with filters, get, create or update (merge or replace), update, delete, and sync a source's complete set of assets",
		defaults: { name: 'Stockroom Asset' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'stockroomOAuth2Api', required: true }],
		properties,
	};

	methods = {
		listSearch: { searchAssets },
		loadOptions: { getAssetCustomFields, getAssetFilterFields },
		resourceMapping: { getAssetMappingColumns, getAssetSyncColumns },
	};

	execute = createRouter(operations);
}
