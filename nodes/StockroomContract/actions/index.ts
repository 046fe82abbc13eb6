import type { INodeProperties } from 'n8n-workflow';
import * as applyPlan from './applyPlan.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as sync from './sync.operation';
import * as upsert from './upsert.operation';

export const operations = { applyPlan, upsert, delete: del, get, getAll, sync };

export const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Apply Sync Plan',
				value: 'applyPlan',
				description:
					"Write exactly the plan of a Sync dry run a person approved, taken from its Summary or Report: no second copy of the Sync's settings; every contract the plan touches must still be as the dry run read it, or nothing is written",
				action: 'Apply an approved sync plan',
			},
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
			{
				name: 'Sync',
				value: 'sync',
				description:
					'Make the contracts in scope match the input items, the complete set from one procurement source: create, update the fields and line items to sync, and keep or delete those the source no longer has. As an AI tool it proposes: each call is a dry run returning the plan and its planId, and only a node set to apply an approved plan writes, given that planId.',
				action: 'Sync contracts',
			},
		],
		default: 'getAll',
	},
	...applyPlan.description,
	...upsert.description,
	...del.description,
	...get.description,
	...getAll.description,
	...sync.description,
];
