import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import {
	buildFilter,
	FilterConditionError,
	printFilter,
	type FilterCondition,
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

	// written by hand from the filter grammar (service-behaviour.md §6): a field or an operator that
	// arrives from an expression or an AI agent must never add clauses to the filter
	test.each([
		[
			{ field: 'customFieldValues.a pr or id', operator: 'eq', value: 'x' },
			`Filter condition 1 (customFieldValues.a pr or id): "customFieldValues.a pr or id" is not a field name`,
		],
		[
			{ field: 'deviceName', operator: 'eq 1 or id pr or id eq', value: 'x' },
			'Filter condition 1 (deviceName): "eq 1 or id pr or id eq" is not an operator (expected one of eq, ne, co, sw, ew, gt, ge, lt, le, pr)',
		],
		[
			{ field: 'customFieldValues.memoryGb', operator: 'pr) or (id', value: 'x' },
			'Filter condition 1 (customFieldValues.memoryGb): "pr) or (id" is not an operator (expected one of eq, ne, co, sw, ew, gt, ge, lt, le, pr)',
		],
		[{ field: 'not', operator: 'pr' }, 'Filter condition 1 (not): "not" is not a field name'],
		[
			{ field: 'status eq "New" or deviceName', operator: 'pr' },
			'Filter condition 1 (status eq "New" or deviceName): "status eq \\"New\\" or deviceName" is not a field name',
		],
	] as const)(
		'a row whose structure is not a field and an operator is refused: %j',
		(row, message) => {
			const build = () =>
				buildFilter({ match: 'all', conditions: [row as FilterCondition] }, assetSchema);
			expect(build).toThrow(FilterConditionError);
			expect(build).toThrow(message);
		},
	);

	test('operators in capitals are read as operators; a well-formed custom field name is accepted', () => {
		expect(
			text({
				match: 'all',
				conditions: [
					{ field: 'deviceName', operator: 'EQ' as never, value: 'x' },
					{ field: 'customFieldValues.cost_center-2', operator: 'Sw' as never, value: 'EU' },
				],
			}),
		).toBe('deviceName eq "x" and customFieldValues.cost_center-2 sw "EU"');
	});

	test('the printer never writes an attribute or operator that would read back as more', () => {
		expect(() => printFilter({ kind: 'present', attribute: 'a or b', position: 0 })).toThrow(
			'cannot write "a or b" as an attribute in a filter',
		);
		expect(() =>
			printFilter({
				kind: 'compare',
				attribute: 'deviceName',
				operator: 'eq "x" or id' as never,
				value: 'y',
				position: 0,
			}),
		).toThrow('cannot write the operator "eq \\"x\\" or id" in a filter');
	});
});
