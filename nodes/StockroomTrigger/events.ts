import type { INodePropertyOptions } from 'n8n-workflow';
import { ASSETS_PATH, CONTRACTS_PATH } from '../shared/resources';
import type { MemoryUnit } from './memory';

export type EventName =
	'assetSynced' | 'contractAgreementDated' | 'recordChanged' | 'renewalNoticeDue';
export type Resource = 'assets' | 'contracts';

/** Events by resource (the Event parameter shows the ones of the chosen resource). */
export const EVENT_OPTIONS: Record<Resource, INodePropertyOptions[]> = {
	assets: [
		{
			name: 'Asset Synced',
			value: 'assetSynced',
			description:
				"An asset's Last Synced At is set to a value it did not have before: once per new value, whether that value is recent, hours late, backdated or in the future",
		},
		{
			name: 'Record Changed',
			value: 'recordChanged',
			description: "An asset was created or modified (by the service's own modification time)",
		},
	],
	contracts: [
		{
			name: 'Contract Agreement Dated',
			value: 'contractAgreementDated',
			description:
				'A contract is recorded with an agreement date, or its agreement date changes: once per contract and date, whatever the date (contracts are often entered after signing)',
		},
		{
			name: 'Record Changed',
			value: 'recordChanged',
			description: "A contract was created or modified (by the service's own modification time)",
		},
		{
			name: 'Renewal Notice Due',
			value: 'renewalNoticeDue',
			description:
				'The last day to give notice on a contract (renewal date minus notice days) is near: once per contract, renewal date and notice period',
		},
	],
};

/** Human words for the trigger's subtitle. */
export const EVENT_LABELS: Record<EventName, string> = {
	assetSynced: 'Asset Synced',
	contractAgreementDated: 'Contract Agreement Dated',
	recordChanged: 'Record Changed',
	renewalNoticeDue: 'Renewal Notice Due',
};

/**
 * What a change event watches. Every change event reads the records the service modified since
 * the last poll (the list's `since`, on the service's own clock); `field` is what makes a
 * modification a change: a new value of a watched field, or any modification.
 */
export interface ChangeEvent {
	name: Exclude<EventName, 'renewalNoticeDue'>;
	path: string;
	noun: string;
	/** The field whose new values are the changes; `lastModifiedDtm` for any modification. */
	field: string;
	/** Whether a change is a new value of `field` (remembered per record for good). */
	watchesValue: boolean;
	unit: MemoryUnit;
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
				noun: 'asset',
				field: 'lastSyncDtm',
				watchesValue: true,
				unit: 'ms',
			};
		case 'contractAgreementDated':
			return {
				name,
				path: CONTRACTS_PATH,
				noun: 'contract',
				field: 'agreementDate',
				watchesValue: true,
				unit: 'day',
			};
		case 'recordChanged':
			return {
				name,
				path: resource === 'contracts' ? CONTRACTS_PATH : ASSETS_PATH,
				noun: resource === 'contracts' ? 'contract' : 'asset',
				field: 'lastModifiedDtm',
				watchesValue: false,
				unit: 'ms',
			};
	}
}
