import { idPattern, recordLocator } from '../shared/descriptions/locators';

const CONTRACT_ID_PATTERN = new RegExp(idPattern(24));

/** Picks one contract: from a searchable list, by ID, or by External ID (the service takes either). */
export const contractLocator = recordLocator({
	noun: 'Contract',
	searchListMethod: 'searchContracts',
	idLength: 24,
	idPlaceholder: '65f1c0ffee0123456789abcd',
	externalIdPlaceholder: 'e.g. the ID in your procurement system',
});

/**
 * The contract's path segment: its ID (checked like every ID) or its External ID, URL-encoded.
 * An External ID of only dots cannot be a path segment (URL parsers read `..` as "one level
 * up", encoded or not), so it is refused rather than sent somewhere else.
 */
export function contractKey(locator: { mode?: string; value?: unknown }): {
	key: string;
	label: string;
} {
	const value = String(locator.value ?? '').trim();
	if (!value) throw new Error('Contract: choose a contract or enter its ID or External ID');
	if (locator.mode !== 'externalId') {
		if (!CONTRACT_ID_PATTERN.test(value)) {
			throw new Error(
				`Contract: "${value}" is not a contract ID (24 hexadecimal characters); for an External ID choose "By External ID"`,
			);
		}
		return { key: value.toLowerCase(), label: `contract ${value}` };
	}
	if (/^\.+$/.test(value)) {
		throw new Error(
			`Contract: the External ID "${value}" cannot be used in a URL path; pick the contract by its ID`,
		);
	}
	return { key: encodeURIComponent(value), label: `contract with External ID "${value}"` };
}
