import { assetSchema } from '../../../nodes/shared/schema/asset';
import { userSchema } from '../../../nodes/shared/schema/user';
import { checkFilter } from '../../../nodes/shared/filter';
import { compileFilter } from '../../../nodes/shared/filter/evaluate';

const test1 = (text: string, record: Record<string, unknown>, schema = assetSchema) =>
	compileFilter(checkFilter(text, schema), schema)(record);

describe('evaluating filters on records', () => {
	test.each([
		['{numberValue}', { customFieldValues: { memoryGb: { numberValue: 16 } } }],
		['a plain value under customFields', { customFields: { memoryGb: 16 } }],
		['a differently cased name', { customFieldValues: { MemoryGB: { numberValue: 16 } } }],
	])('customFieldValues.<name> reads %s', (_, record) => {
		expect(test1('customFieldValues.memoryGb eq 16', record)).toBe(true);
		expect(test1('customFields.memoryGb gt 15.5', record)).toBe(true);
		expect(test1('customFieldValues.memoryGb lt 16', record)).toBe(false);
	});

	test.each([
		['{textValue}', { textValue: 'EU-North' }, 'customFieldValues.costCenter sw "eu-"'],
		[
			'{optionValue}',
			{ optionValue: ['Gold', 'Onsite'] },
			'customFieldValues.costCenter eq "onsite"',
		],
		[
			'{currencyValue:{value}}',
			{ currencyValue: { value: 1200, currency: 'EUR' } },
			'customFieldValues.costCenter ge 1200',
		],
		[
			'a bare {value, currency}',
			{ value: 1200, currency: 'EUR' },
			'customFieldValues.costCenter eq 1200',
		],
		[
			'{linkValue:{href}}',
			{ linkValue: { href: 'https://support.example.com/x' } },
			'customFieldValues.costCenter co "support.example"',
		],
		[
			'a date in {textValue}',
			{ textValue: '2024-02-01' },
			'customFieldValues.costCenter gt "2024-01-31T23:00:00Z"',
		],
	])('custom field stored as %s', (_, value, text) => {
		expect(test1(text, { customFieldValues: { costCenter: value } })).toBe(true);
		expect(test1(`not (${text})`, { customFieldValues: { costCenter: value } })).toBe(false);
	});

	test('a comparison with a missing attribute is false for every operator, ne included', () => {
		for (const operator of ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']) {
			expect(test1(`notes ${operator} "x"`, { deviceName: 'd' })).toBe(false);
			expect(test1(`customFieldValues.memoryGb ${operator} 1`, { deviceName: 'd' })).toBe(false);
		}
		expect(test1('netPrice ne 3', {})).toBe(false);
		expect(test1('not (notes pr)', {})).toBe(true);
	});

	test('null means "no value"', () => {
		expect(test1('notes eq null', {})).toBe(true);
		expect(test1('notes eq null', { notes: 'n' })).toBe(false);
		expect(test1('notes ne null', { notes: 'n' })).toBe(true);
	});

	test('pr is false for empty values', () => {
		expect(test1('notes pr', { notes: '' })).toBe(false);
		expect(test1('customFieldValues pr', { customFieldValues: {} })).toBe(false);
		expect(test1('customFieldValues pr', { customFieldValues: { a: { textValue: 'x' } } })).toBe(
			true,
		);
	});

	test('dates and date-times compare as instants; a date means midnight UTC', () => {
		const record = {
			purchasedDate: '2024-03-01T00:00:00Z',
			lastSyncDtm: '2024-03-01T01:00:00.000+01:00',
		};
		expect(test1('purchasedDate eq "2024-03-01"', record)).toBe(true);
		expect(test1('purchasedDate eq "2024-03-01T00:00:00.000Z"', record)).toBe(true);
		expect(test1('lastSyncDtm eq "2024-03-01"', record)).toBe(true);
		expect(test1('lastSyncDtm gt "2024-02-29T23:59:59.999Z"', record)).toBe(true);
		expect(test1('lastSyncDtm lt "2024-03-01T00:00:00.001Z"', record)).toBe(true);
		expect(test1('lastSyncDtm gt "2024-03-01T00:00:00Z"', record)).toBe(false);
	});

	test('strings compare case-insensitively, numbers as numbers', () => {
		expect(test1('hardwareVendor eq "DELL"', { hardwareVendor: 'dell' })).toBe(true);
		expect(test1('hardwareVendor ew "INC."', { hardwareVendor: 'Dell Inc.' })).toBe(true);
		expect(test1('netPrice gt 9', { netPrice: 10 })).toBe(true);
		expect(test1('netPrice gt 9', { netPrice: '10' })).toBe(false);
		expect(test1('isEncrypted ne true', { isEncrypted: false })).toBe(true);
	});

	test('dotted paths into objects and lists of objects (any element)', () => {
		const user = {
			emails: [
				{ value: 'a@example.com', type: 'work' },
				{ value: 'b@home.example', type: 'home' },
			],
			name: { givenName: 'Ada' },
		};
		expect(test1('emails.value ew "@home.example"', user, userSchema)).toBe(true);
		expect(test1('emails[type eq "work" and value sw "a@"]', user, userSchema)).toBe(true);
		expect(test1('emails[type eq "work" and value sw "b@"]', user, userSchema)).toBe(false);
		expect(test1('name.givenName eq "ada"', user, userSchema)).toBe(true);
		expect(
			test1('lastModifiedBy.email ew "@example.com"', {
				lastModifiedBy: { email: 'api@example.com' },
			}),
		).toBe(true);
	});

	test('precedence: not before and before or', () => {
		const record = { status: 'New', hardwareVendor: 'Dell' };
		expect(test1('status eq "Retired" and hardwareVendor eq "x" or status eq "New"', record)).toBe(
			true,
		);
		expect(
			test1('status eq "Retired" and (hardwareVendor eq "x" or status eq "New")', record),
		).toBe(false);
		expect(test1('not (status eq "Retired") and hardwareVendor eq "Dell"', record)).toBe(true);
	});
});
