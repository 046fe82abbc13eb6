import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import { validateRecord } from '../../../nodes/shared/schema/validate';
import { isCalendarDate, isDateTime, isEmail } from '../../../nodes/shared/schema/values';

const asset = {
	externalId: 'MDM-1',
	deviceName: 'Laptop 1',
	status: 'Deployed',
	hardwareVendor: 'Dell',
	assetType: 'Laptop',
};
const definitions = [
	{ id: '1', name: 'Memory (GB)', lookupKey: 'memoryGb', type: 'Number' as const },
	{
		id: '2',
		name: 'Tier',
		lookupKey: 'tier',
		type: 'Option' as const,
		options: [
			{ id: 'a', label: 'Gold' },
			{ id: 'b', label: 'Silver' },
		],
	},
];

describe('validating records against the resource schema', () => {
	test('a complete asset passes', () => {
		expect(
			validateRecord(
				assetSchema,
				{
					...asset,
					purchasedDate: '2024-02-29',
					netPrice: 0,
					netPriceCurrency: 'EUR',
					lastSyncDtm: '2024-03-01T10:00:00+02:00',
				},
				{ mode: 'replace' },
			),
		).toEqual([]);
	});

	test('every problem is named with its field and what was expected', () => {
		expect(
			validateRecord(
				assetSchema,
				{
					deviceName: 'x',
					status: 'Broken',
					hardwareVendor: '',
					assetType: 'Laptop',
					purchasedDate: '2021-02-30',
					assignedToEmail: 'nobody',
					netPrice: -1,
					netPriceCurrency: 'EURO',
					lastSyncDtm: '2024-03-01 10:00',
					isEncrypted: 'yes',
					colour: 'red',
				},
				{ mode: 'replace' },
			),
		).toEqual([
			{
				path: 'status',
				label: 'Status',
				message:
					'expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired, got "Broken"',
			},
			{
				path: 'hardwareVendor',
				label: 'Hardware Vendor',
				message: 'is required and cannot be empty: it must be text',
			},
			{
				path: 'purchasedDate',
				label: 'Purchased Date',
				message: 'expected a date as YYYY-MM-DD (a real calendar date), got "2021-02-30"',
			},
			{
				path: 'assignedToEmail',
				label: 'Assigned To Email',
				message: 'expected an e-mail address like name@example.com, got "nobody"',
			},
			{ path: 'netPrice', label: 'Net Price', message: 'expected a number, zero or more, got -1' },
			{
				path: 'netPriceCurrency',
				label: 'Net Price Currency',
				message: 'expected a 3-letter ISO 4217 currency code such as USD or EUR, got "EURO"',
			},
			{
				path: 'lastSyncDtm',
				label: 'Last Synced At',
				message:
					'expected a date-time in ISO 8601 with a time zone, like 2024-05-01T10:30:00Z, got "2024-03-01 10:00"',
			},
			{ path: 'isEncrypted', label: 'Is Encrypted', message: 'expected true or false, got "yes"' },
			{ path: 'colour', message: 'is not a field of this record' },
			{ path: 'externalId', label: 'External ID', message: 'is required: it must be text' },
		]);
	});

	test('read-only fields are ignored; unknown fields can be ignored', () => {
		expect(
			validateRecord(
				assetSchema,
				{ ...asset, id: 'x', createdDtm: 'whenever', extra: 1 },
				{ mode: 'replace', unknownFields: 'ignore' },
			),
		).toEqual([]);
	});

	test('a patch needs no required fields, clears optional ones with null, and cannot clear required ones', () => {
		expect(validateRecord(assetSchema, { notes: null, netPrice: 12 }, { mode: 'patch' })).toEqual(
			[],
		);
		expect(
			validateRecord(assetSchema, { status: null, deviceName: '' }, { mode: 'patch' }),
		).toEqual([
			{ path: 'status', label: 'Status', message: 'is required and cannot be cleared' },
			{
				path: 'deviceName',
				label: 'Device Name',
				message: 'is required and cannot be empty: it must be text',
			},
		]);
		expect(validateRecord(assetSchema, { ...asset, notes: null }, { mode: 'replace' })).toEqual([
			{ path: 'notes', label: 'Notes', message: 'cannot be null; leave the field out instead' },
		]);
	});

	test('line items and documents are checked element by element', () => {
		const contract = {
			externalId: 'C-1',
			ref: 'PO-1',
			type: 'MSA',
			vendorName: 'Acme',
			agreementDate: '2024-01-01T00:00:00Z',
		};
		expect(
			validateRecord(
				contractSchema,
				{
					...contract,
					lineItems: [
						{ description: 'Seats', unitCount: 3, currency: 'USD' },
						{ unitCount: 'many' },
						'x',
					],
					documents: [{ linkUrl: 'ftp://x' }],
				},
				{ mode: 'replace' },
			),
		).toEqual([
			{
				path: 'lineItems[1].unitCount',
				label: 'Unit Count',
				message: 'expected a number, zero or more, got "many"',
			},
			{
				path: 'lineItems[1].description',
				label: 'Description',
				message: 'is required: it must be text',
			},
			{ path: 'lineItems[2]', label: 'Line Item', message: 'expected a line item object, got "x"' },
			{
				path: 'documents[0].linkUrl',
				label: 'Link URL',
				message: 'expected an http(s) URL, got "ftp://x"',
			},
		]);
		expect(
			validateRecord(
				contractSchema,
				{ ...contract, terminationNoticeDays: 30.5 },
				{ mode: 'replace' },
			),
		).toEqual([
			{
				path: 'terminationNoticeDays',
				label: 'Termination Notice Days',
				message: 'expected a whole number, zero or more, got 30.5',
			},
		]);
	});

	test('custom field values: exactly one typed attribute, checked against the definitions when known, named by the definition', () => {
		const check = (customFieldValues: unknown) =>
			validateRecord(
				assetSchema,
				{ ...asset, customFieldValues },
				{ mode: 'replace', customFieldDefinitions: definitions },
			);
		expect(check({ memoryGb: { numberValue: 16 }, tier: { optionValue: ['Gold'] } })).toEqual([]);
		expect(check({ memoryGb: { numberValue: 16, textValue: 'x' } })).toEqual([
			{
				path: 'customFieldValues.memoryGb',
				label: 'Memory (GB)',
				message:
					'expected exactly one of numberValue, textValue, optionValue, currencyValue, linkValue, got {"numberValue":16,"textValue":"x"}',
			},
		]);
		expect(check({ memoryGb: { textValue: '16' } })).toEqual([
			{
				path: 'customFieldValues.memoryGb',
				label: 'Memory (GB)',
				message: 'is a Number field: expected numberValue, got textValue',
			},
		]);
		expect(check({ tier: { optionValue: ['Bronze'] } })).toEqual([
			{
				path: 'customFieldValues.tier',
				label: 'Tier',
				message: 'expected options among Gold, Silver, got "Bronze"',
			},
		]);
		expect(check({ memoryGB2: { numberValue: 1 } })).toEqual([
			{
				path: 'customFieldValues.memoryGB2',
				message: "is not a custom field (did you mean 'memoryGb'?)",
			},
		]);
	});
});

describe('value checks', () => {
	test.each(['2024-02-29', '2000-02-29', '1999-12-31'])('%s is a calendar date', (value) =>
		expect(isCalendarDate(value)).toBe(true),
	);
	test.each(['2023-02-29', '1900-02-29', '2024-13-01', '2024-04-31', '2024-4-1', '24-04-01'])(
		'%s is not',
		(value) => expect(isCalendarDate(value)).toBe(false),
	);
	test.each(['2024-03-01T10:00:00Z', '2024-03-01T10:00Z', '2024-03-01T10:00:00.123456+05:30'])(
		'%s is a date-time',
		(value) => expect(isDateTime(value)).toBe(true),
	);
	test.each(['2024-03-01T24:00:00Z', '2024-03-01T10:00:00', '2024-02-30T10:00:00Z', '2024-03-01'])(
		'%s is not',
		(value) => expect(isDateTime(value)).toBe(false),
	);
	test('e-mail addresses', () => {
		expect(['a@b.co', 'first.last+tag@sub.example.org'].every(isEmail)).toBe(true);
		expect(['a@b', 'a b@c.de', '@c.de', 'a@@c.de'].some(isEmail)).toBe(false);
	});
});
