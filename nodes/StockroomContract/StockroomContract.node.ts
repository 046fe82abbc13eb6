import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { searchContracts } from '../shared/methods/listSearch';
import { getContractSyncColumns } from '../shared/methods/resourceMapping';
import { createRouter } from '../shared/runItems';
import { operations, properties } from './actions';
import { requireSupportedN8n } from '../shared/supportedN8n';

requireSupportedN8n();

export class StockroomContract implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stockroom Contract',
		name: 'stockroomContract',
		icon: { light: 'file:../../icons/stockroom.svg', dark: 'file:../../icons/stockroom.dark.svg' },
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ { applyPlan: "Apply Sync Plan", upsert: "Create or Update", delete: "Delete", get: "Get", getAll: "Get Many", sync: "Sync" }[$parameter["operation"]] }}',
		description:
			"Read and write contracts with their line items and documents, and sync a procurement source's complete set of contracts",
		defaults: { name: 'Stockroom Contract' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'stockroomOAuth2Api', required: true }],
		properties,
	};

	methods = {
		listSearch: { searchContracts },
		resourceMapping: { getContractSyncColumns },
	};

	execute = createRouter(operations);
}
