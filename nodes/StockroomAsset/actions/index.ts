import type { INodeProperties } from 'n8n-workflow';
import * as applyPlan from './applyPlan.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as sync from './sync.operation';
import * as update from './update.operation';
import * as upsert from './upsert.operation';

export const operations = { applyPlan, upsert, delete: del, get, getAll, sync, update };

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
					"Write exactly the plan of a Sync dry run a person approved, taken from its Summary or Report: no second copy of the Sync's settings; every asset the plan touches must still be as the dry run read it, or nothing is written",
				action: 'Apply an approved sync plan',
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				description: 'Create a new asset, or update the current one if it already exists (upsert)',
				action: 'Create or update an asset',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete an asset',
				action: 'Delete an asset',
			},
			{ name: 'Get', value: 'get', description: 'Get an asset', action: 'Get an asset' },
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many assets',
				action: 'Get many assets',
			},
			{
				name: 'Sync',
				value: 'sync',
				description:
					'Make the assets in scope match the input items, the complete set from one source: create, update the fields to sync, keep, set the status of or delete those the source no longer has, and restore those back in it. As an AI tool it proposes: each call is a dry run returning the plan and its planId, and only a node set to apply an approved plan writes, given that planId.',
				action: 'Sync assets',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change some fields of an asset, keeping the others',
				action: 'Update an asset',
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
	...update.description,
];
