import type { INodePropertyOptions } from 'n8n-workflow';
import { ASSETS_PATH, CONTRACTS_PATH } from '../shared/resources';
import { assetSchema } from '../shared/schema/asset';
import { contractSchema } from '../shared/schema/contract';
import type { ResourceSchema } from '../shared/schema/fields';
import type { ValueKind } from './cursor';

export type EventName =
	'assetSynced' | 'contractAgreementDated' | 'recordChanged' | 'renewalNoticeDue';
export type Resource = 'assets' | 'contracts';

const RECORD_CHANGED = (noun: string): INodePropertyOptions => ({
	name: 'Record Changed',
	value: 'recordChanged',
	description: `An ${noun} was created or modified`,
});

/** Events by resource (the Event parameter shows the ones of the chosen resource). */
export const EVENT_OPTIONS: Record<Resource, INodePropertyOptions[]> = {
	assets: [
		{
			name: 'Asset Synced',
			value: 'assetSynced',
			description:
				"An asset's Last Synced At moved forward (it synchronised from a device-management platform)",
		},
		RECORD_CHANGED('asset'),
	],
	contracts: [
		{
			name: 'Contract Agreement Dated',
			value: 'contractAgreementDated',
			description:
				'A contract has an agreement date newer than those seen before (a new agreement was signed)',
		},
		{ ...RECORD_CHANGED('asset'), description: 'A contract was created or modified' },
		{
			name: 'Renewal Notice Due',
			value: 'renewalNoticeDue',
			description:
				'The last day to give notice on a contract (renewal date minus notice days) is near',
		},
	],
};

/** What a change event watches: a list, a date or date-time field, and how to ask for the window. */
export interface ChangeEvent {
	name: EventName;
	path: string;
	schema: ResourceSchema;
	field: string;
	kind: ValueKind;
	/** Ask for the window with the list's `since` parameter instead of a filter clause. */
	viaSince: boolean;
}

export function changeEvent(
	name: Exclude<EventName, 'renewalNoticeDue'>,
	resource: Resource,
): ChangeEvent {
	switch (name) {
		case 'assetSynced':
			return {
				name,
				path: ASSETS_PATH,
				schema: assetSchema,
				field: 'lastSyncDtm',
				kind: 'dateTime',
				viaSince: false,
			};
		case 'contractAgreementDated':
			return {
				name,
				path: CONTRACTS_PATH,
				schema: contractSchema,
				field: 'agreementDate',
				kind: 'date',
				viaSince: false,
			};
		case 'recordChanged':
			return {
				name,
				path: resource === 'contracts' ? CONTRACTS_PATH : ASSETS_PATH,
				schema: resource === 'contracts' ? contractSchema : assetSchema,
				field: 'lastModifiedDtm',
				kind: 'dateTime',
				viaSince: true,
			};
	}
}
