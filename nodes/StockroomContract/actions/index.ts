import type { INodeProperties } from 'n8n-workflow';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as upsert from './upsert.operation';

export const operations = { upsert, delete: del, get, getAll };

export const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Create or Update',
				value: 'upsert',
				description:
					'Create a new contract, or update the current one if it already exists (upsert)',
				action: 'Create or update a contract',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a contract',
				action: 'Delete a contract',
			},
			{ name: 'Get', value: 'get', description: 'Get a contract', action: 'Get a contract' },
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many contracts',
				action: 'Get many contracts',
			},
		],
		default: 'getAll',
	},
	...upsert.description,
	...del.description,
	...get.description,
	...getAll.description,
];
