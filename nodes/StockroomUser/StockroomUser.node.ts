import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { searchUsers } from '../shared/methods/listSearch';
import { createRouter } from '../shared/runItems';
import { operations, properties } from './actions';
import { requireSupportedN8n } from '../shared/supportedN8n';

requireSupportedN8n();

export class StockroomUser implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stockroom User',
		name: 'stockroomUser',
		icon: { light: 'file:../../icons/stockroom.svg', dark: 'file:../../icons/stockroom.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ { get: "Get", getAll: "Get Many" }[$parameter["operation"]] }}',
		description:
			'Read the people (SCIM users) that assets are assigned to and contracts are owned by',
		defaults: { name: 'Stockroom User' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'stockroomOAuth2Api', required: true }],
		properties,
	};

	methods = { listSearch: { searchUsers } };

	execute = createRouter(operations);
}
