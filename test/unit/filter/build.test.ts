import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import {
	buildFilter,
	FilterConditionError,
	printFilter,
	type FilterGroup,
} from '../../../nodes/shared/filter';

const text = (group: FilterGroup, schema = assetSchema) => {
	const node = buildFilter(group, schema);
	return node && printFilter(node);
};

describe('building filters from builder rows', () => {
	test('rows combine with all/any, negate wraps in not, values are coerced to the field type', () => {
		expect(
			text({
				match: 'all',
				conditions: [
					{ field: 'status', operator: 'eq', value: 'Deployed' },
					{ field: 'netPrice', operator: 'gt', value: '1200.5' },
					{ field: 'isEncrypted', operator: 'eq', value: 'false' },
					{ field: 'lastSyncDtm', operator: 'pr', negate: true },
				],
			}),
		).toBe(
			'status eq "Deployed" and netPrice gt 1200.5 and isEncrypted eq false and not (lastSyncDtm pr)',
		);
		expect(
			text({
				match: 'any',
				conditions: [
					{ field: 'deviceName', operator: 'co', value: 42 },
					{ field: 'notes', operator: 'sw', value: 'a "b" \\ c' },
				],
			}),
		).toBe('deviceName co "42" or notes sw "a \\"b\\" \\\\ c"');
	});

	test('no rows, no filter', () => {
		expect(buildFilter({ match: 'all', conditions: [] }, assetSchema)).toBeUndefined();
	});

	test('line-item conditions compile to lineItems[...]', () => {
		expect(
			text(
				{
					match: 'all',
					conditions: [
						{ field: 'vendorName', operator: 'sw', value: 'Micro' },
						{
							field: 'lineItems',
							within: {
								match: 'any',
								conditions: [
									{ field: 'unitCount', operator: 'gt', value: 100 },
									{ field: 'currency', operator: 'eq', value: 'EUR' },
								],
							},
						},
					],
				},
				contractSchema,
			),
		).toBe('vendorName sw "Micro" and lineItems[unitCount gt 100 or currency eq "EUR"]');
	});

	test('custom fields keep the value type chosen in the UI', () => {
		expect(
			text({
				match: 'all',
				conditions: [
					{ field: 'customFieldValues.memoryGb', operator: 'ge', value: 16 },
					{ field: 'customFieldValues.costCenter', operator: 'eq', value: '16' },
				],
			}),
		).toBe('customFieldValues.memoryGb ge 16 and customFieldValues.costCenter eq "16"');
	});

	test.each([
		[
			{ field: 'netPrice', operator: 'gt', value: 'cheap' },
			'Filter condition 1 (netPrice): expected a number, got "cheap"',
		],
		[
			{ field: 'status', operator: 'eq', value: 'Broken' },
			'Filter condition 1 (status): "Broken" is not a value of \'status\' (expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired)',
		],
		[
			{ field: 'purchasedDate', operator: 'lt', value: '2021-02-30' },
			'Filter condition 1 (purchasedDate): "2021-02-30" is not a real date or date-time (for \'purchasedDate\')',
		],
		[
			{ field: 'notes', operator: 'eq', value: '' },
			'Filter condition 1 (notes): needs a value for \'eq\' (to find records without a value, use "is empty")',
		],
		[
			{ field: 'isEncrypted', operator: 'gt', value: true },
			"Filter condition 1 (isEncrypted): operator 'gt' does not apply to 'isEncrypted', a true/false attribute; use eq, ne or pr",
		],
		[
			{ field: 'colour', operator: 'eq', value: 'x' },
			"Filter condition 1 (colour): unknown attribute 'colour'",
		],
	] as const)('a bad row is a clear error: %j', (condition, message) => {
		expect(() => buildFilter({ match: 'all', conditions: [condition] }, assetSchema)).toThrow(
			new FilterConditionError(
				1,
				condition.field,
				message.replace(/^Filter condition 1 \([^)]*\): /, ''),
			),
		);
	});

	test('a bad line-item row names both conditions', () => {
		expect(() =>
			buildFilter(
				{
					match: 'all',
					conditions: [
						{ field: 'vendorName', operator: 'pr' },
						{
							field: 'lineItems',
							within: {
								match: 'all',
								conditions: [{ field: 'unitCount', operator: 'gt', value: 'many' }],
							},
						},
					],
				},
				contractSchema,
			),
		).toThrow(
			'Filter condition 2 (lineItems): line item condition 1 (unitCount): expected a number, got "many"',
		);
	});
});
