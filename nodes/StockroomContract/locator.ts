import type { INodeProperties } from 'n8n-workflow';

/** Picks one contract: from a searchable list, by ID, or by External ID (the service takes either). */
export const contractLocator: INodeProperties = {
	displayName: 'Contract',
	name: 'contract',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: {
				searchListMethod: 'searchContracts',
				searchable: true,
				searchFilterRequired: false,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: '65f1c0ffee0123456789abcd',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^[0-9a-fA-F]{24}$',
						errorMessage: 'A contract ID is 24 hexadecimal characters',
					},
				},
			],
		},
		{
			displayName: 'By External ID',
			name: 'externalId',
			type: 'string',
			placeholder: 'e.g. the ID in your procurement system',
		},
	],
};

/** The contract's path segment: its ID or External ID, URL-encoded. */
export function contractKey(locator: { mode?: string; value?: unknown }): {
	key: string;
	label: string;
} {
	const value = String(locator.value ?? '').trim();
	if (!value) throw new Error('Contract: choose a contract or enter its ID or External ID');
	const label =
		locator.mode === 'externalId' ? `contract with External ID "${value}"` : `contract ${value}`;
	return { key: encodeURIComponent(value), label };
}
