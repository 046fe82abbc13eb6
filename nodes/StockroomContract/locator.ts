import { recordLocator } from '../shared/descriptions/locators';

/** Picks one contract: from a searchable list, by ID, or by External ID (the service takes either). */
export const contractLocator = recordLocator({
	noun: 'Contract',
	searchListMethod: 'searchContracts',
	idLength: 24,
	idPlaceholder: '65f1c0ffee0123456789abcd',
	externalIdPlaceholder: 'e.g. the ID in your procurement system',
});

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
