import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import type { Fields, FieldSet } from '../../../nodes/shared/schema/fields';
import { checkFilter, parseFilter, printFilter } from '../../../nodes/shared/filter';
import { compileFilter } from '../../../nodes/shared/filter/evaluate';
import { withoutPositions } from './helpers';

const matches = (schema: FieldSet, text: string, records: Array<Record<string, unknown>>) => {
	const predicate = compileFilter(checkFilter(text, schema), schema);
	return records.filter(predicate).map((record) => record.id);
};

const assets = [
	{
		id: 'a1',
		hardwareVendor: 'Dell Inc.',
		status: 'Deployed',
		lastSyncDtm: '2024-03-01T10:00:00.000Z',
		customFieldValues: { memoryGb: { numberValue: 16 } },
	},
	{
		id: 'a2',
		hardwareVendor: 'Apple',
		status: 'deployed',
		customFieldValues: { memoryGb: { numberValue: 8 } },
	},
	{
		id: 'a3',
		hardwareVendor: 'dell',
		status: 'Retired',
		lastSyncDtm: '2023-01-01T00:00:00Z',
		customFields: { memoryGb: 32 },
	},
	{ id: 'a4', hardwareVendor: 'Lenovo', status: 'New', lastSyncDtm: '' },
];

const contracts = [
	{
		id: 'c1',
		vendorName: 'Agilebits Inc',
		isAutomaticRenewal: true,
		agreementDate: '2021-06-01T00:00:00Z',
		lineItems: [{ description: 'Seats', unitCount: 150 }],
	},
	{
		id: 'c2',
		vendorName: 'Microsoft Corporation',
		agreementDate: '2021-05-31T00:00:00Z',
		lineItems: [
			{ description: 'E3', unitCount: 100 },
			{ description: 'E5', unitCount: 20 },
		],
	},
	{
		id: 'c3',
		vendorName: 'microsoft',
		isAutomaticRenewal: false,
		agreementDate: '2022-01-15T00:00:00Z',
		lineItems: [],
	},
];

describe('examples from service-api.md and service-behaviour.md', () => {
	test.each([
		['hardwareVendor co "Dell"', ['a1', 'a3']],
		['status eq "Deployed"', ['a1', 'a2']],
		['customFieldValues.memoryGb gt 12', ['a1', 'a3']],
		['not (lastSyncDtm pr)', ['a2', 'a4']],
		['lastSyncDtm ge "2024-01-01"', ['a1']],
		['hardwareVendor sw "DE" and not(status eq "retired")', ['a1']],
	])('assets: %s', (text, expected) => {
		expect(matches(assetSchema, text, assets)).toEqual(expected);
	});

	test.each([
		['vendorName eq "Agilebits Inc"', ['c1']],
		['vendorName sw "Micros"', ['c2', 'c3']],
		['lineItems[unitCount gt 100]', ['c1']],
		['isAutomaticRenewal eq true', ['c1']],
		// isAutomaticRenewal is the one field whose absence means false
		['isAutomaticRenewal eq false', ['c2', 'c3']],
		['agreementDate ge "2021-06-01"', ['c1', 'c3']],
		['lineItems[unitCount lt 50 and description eq "e5"]', ['c2']],
		['not(lineItems pr)', ['c3']],
	])('contracts: %s', (text, expected) => {
		expect(matches(contractSchema, text, contracts)).toEqual(expected);
	});

	// examples from other resources of the vendor's material: they must parse and print back
	test.each([
		'actor.alternateId eq "john.doe@example.com" and (published ge "2020-11-01" and published lt "2020-12-01")',
		'status ne "Terminated" and steps[status eq "Waiting" and id eq "abc"]',
		'not(licenses pr)',
		'name eq "zoom"',
	])('parses %s', (text) => {
		const tree = parseFilter(text);
		expect(withoutPositions(parseFilter(printFilter(tree)))).toEqual(withoutPositions(tree));
		expect(printFilter(parseFilter(printFilter(tree)))).toBe(printFilter(tree));
	});

	test('vendor examples from other resources evaluate as documented', () => {
		const events: Fields = {
			actor: {
				type: 'object',
				displayName: 'Actor',
				fields: { alternateId: { type: 'email', displayName: 'Alternate ID' } },
			},
			published: { type: 'dateTime', displayName: 'Published' },
			status: { type: 'string', displayName: 'Status' },
			steps: {
				type: 'list',
				displayName: 'Steps',
				itemName: 'Step',
				fields: {
					status: { type: 'string', displayName: 'Status' },
					id: { type: 'string', displayName: 'ID' },
				},
			},
			licenses: {
				type: 'list',
				displayName: 'Licenses',
				itemName: 'License',
				fields: { name: { type: 'string', displayName: 'Name' } },
			},
			name: { type: 'string', displayName: 'Name' },
		};
		const schema = { noun: 'event', fields: events };
		const records = [
			{
				id: 'e1',
				actor: { alternateId: 'John.Doe@example.com' },
				published: '2020-11-15T08:00:00Z',
				status: 'Running',
				steps: [{ status: 'Waiting', id: 'abc' }],
				name: 'Zoom',
			},
			{
				id: 'e2',
				actor: { alternateId: 'john.doe@example.com' },
				published: '2020-12-01T00:00:00Z',
				status: 'Terminated',
				steps: [{ status: 'waiting', id: 'abc' }],
				licenses: [{ name: 'x' }],
			},
		];
		expect(
			matches(
				schema,
				'actor.alternateId eq "john.doe@example.com" and (published ge "2020-11-01" and published lt "2020-12-01")',
				records,
			),
		).toEqual(['e1']);
		expect(
			matches(
				schema,
				'status ne "Terminated" and steps[status eq "Waiting" and id eq "abc"]',
				records,
			),
		).toEqual(['e1']);
		expect(matches(schema, 'not(licenses pr)', records)).toEqual(['e1']);
		expect(matches(schema, 'name eq "zoom"', records)).toEqual(['e1']);
	});
});
