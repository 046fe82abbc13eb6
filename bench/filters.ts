import { printFilter } from '../nodes/shared/filter';
import { readFilter } from '../nodes/shared/filterInput';
import { assetSchema } from '../nodes/shared/schema/asset';
import type { BuilderFilter } from './workflows';

/** The filtered list's three conditions, as the Asset node's filter builder saves them. */
export const THREE_CONDITIONS: BuilderFilter = {
	matchType: 'all',
	conditions: [
		{ field: 'status', operator: 'eq', statusValue: 'Deployed' },
		{ field: 'purchasedDate', operator: 'ge', dateValue: '2023-07-01T00:00:00' },
		{ field: 'netPrice', operator: 'ge', numberValue: 500 },
	],
};

/** The text the node sends for those conditions, built by the node's own code. */
export async function threeConditionText(): Promise<string> {
	const parameters: Record<string, unknown> = {
		filterMode: 'manual',
		matchType: THREE_CONDITIONS.matchType,
		conditions: { condition: THREE_CONDITIONS.conditions },
	};
	const filter = await readFilter(assetSchema, {
		getParameter: (name, fallback) => parameters[name] ?? fallback,
		timezone: 'UTC',
	});
	if (!filter) throw new Error('the three conditions built no filter');
	return printFilter(filter);
}

/** Clauses of every kind the language has, over asset attributes, for a long expression. */
const CLAUSES = [
	'status eq "Deployed"',
	'hardwareVendor sw "Del"',
	'deviceName co "laptop"',
	'assignedToEmail ew "@northwind.example"',
	'purchasedDate ge "2023-01-01"',
	'lastSyncDtm lt "2025-06-01T12:00:00Z"',
	'netPrice gt 499.5',
	'customFieldValues.memoryGb ge 16',
	'not (notes pr)',
	'isEncrypted eq true',
	'assignedTo.email co "a"',
	'platform ne "Windows"',
	'serialNumber sw "C02"',
	'lastModifiedBy.email ew ".example"',
	'customFields.costCenter eq "CC-1001"',
	'warrantyExpirationDate le "2026-12-31"',
];

/** A valid asset filter of at least `size` characters: and-groups of clauses joined by `or`. */
export function longExpression(size = 2048): string {
	const groups: string[] = [];
	let length = 0;
	for (let i = 0; length < size; i++) {
		const group = `(${[0, 1, 2].map((k) => CLAUSES[(i * 3 + k) % CLAUSES.length]).join(' and ')})`;
		groups.push(group);
		length += group.length + 4;
	}
	return groups.join(' or ');
}
