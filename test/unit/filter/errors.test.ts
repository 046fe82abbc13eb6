import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import { checkFilter, FilterError } from '../../../nodes/shared/filter';

function errorOf(text: string, schema = assetSchema): FilterError {
	try {
		checkFilter(text, schema);
	} catch (error) {
		if (error instanceof FilterError) return error;
		throw error;
	}
	throw new Error(`no error for ${text}`);
}

// [expression, column, message] — syntax errors
const syntaxErrors: Array<[string, number, string]> = [
	['', 1, 'expected an attribute name, found end of input'],
	['   ', 4, 'expected an attribute name, found end of input'],
	[
		'status',
		7,
		"expected an operator after 'status' (eq, ne, co, sw, ew, gt, ge, lt, le or pr), found end of input",
	],
	[
		'status eq',
		10,
		'expected a value after \'eq\' (a "quoted string", a number, true, false or null), found end of input',
	],
	[
		'hardwareVendor eq',
		18,
		'expected a value after \'eq\' (a "quoted string", a number, true, false or null), found end of input',
	],
	[
		'status eqq "New"',
		8,
		"expected an operator after 'status' (eq, ne, co, sw, ew, gt, ge, lt, le or pr), found 'eqq' (did you mean 'eq'?)",
	],
	['status = "New"', 8, "unexpected character '='"],
	[
		'status eq New',
		11,
		"expected a value after 'eq' (a \"quoted string\", a number, true, false or null), found 'New'",
	],
	['status eq "New', 11, "unterminated string (missing closing '\"')"],
	['status eq "New" and', 20, 'expected an attribute name, found end of input'],
	['status eq "New" or or', 20, "expected an attribute name, found 'or'"],
	['and status pr', 1, "expected an attribute name, found 'and'"],
	['(status pr', 11, "expected ')' to close the '(' at column 1, found end of input"],
	['status pr)', 10, "expected 'and', 'or' or end of input (unbalanced ')'), found ')'"],
	['status pr status pr', 11, "expected 'and', 'or' or end of input, found 'status'"],
	['not status pr', 5, "expected '(' after 'not', found 'status'"],
	['not', 4, "expected '(' after 'not', found end of input"],
	['not ()', 6, "expected an attribute name, found ')'"],
	[
		'lineItems[unitCount gt 1',
		25,
		"expected ']' to close the '[' at column 10, found end of input",
	],
	['lineItems[]', 11, "expected an attribute name, found ']'"],
	['netPrice gt 01', 13, "invalid number '01' (no leading zeros)"],
	['netPrice gt 1.', 15, "expected a digit after the decimal point in '1.'"],
	['netPrice gt 1e', 15, "expected the exponent's digits in '1e'"],
	['netPrice gt -', 13, "expected a digit after '-', found end of input"],
	['netPrice gt 1e999', 13, "number '1e999' is out of range"],
	[
		'notes eq "a\\qb"',
		12,
		"invalid escape '\\q' in string (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)",
	],
	['notes eq "\\u12"', 11, "invalid escape '\\u12\"' in string (expected 4 hex digits)"],
	['customFieldValues. eq 1', 19, "expected an attribute name after '.', found ' '"],
	['status eq "New" # comment', 17, "unexpected character '#'"],
	['status eq\u0001"New"', 10, 'unexpected character U+0001'],
	['status eq "New")', 16, "expected 'and', 'or' or end of input (unbalanced ')'), found ')'"],
	[
		'status eq "New" "Deployed"',
		17,
		"expected 'and', 'or' or end of input, found the string \"Deployed\"",
	],
];

// [expression, column, message] — valid syntax that does not fit the asset/contract schema
const schemaErrors: Array<[string, number, string, 'asset' | 'contract']> = [
	['stauts eq "New"', 1, "unknown attribute 'stauts' (did you mean 'status'?)", 'asset'],
	[
		'isEncrypted gt 3',
		1,
		"operator 'gt' does not apply to 'isEncrypted', a true/false attribute; use eq, ne or pr",
		'asset',
	],
	[
		'netPrice co 3',
		1,
		"operator 'co' does not apply to 'netPrice', a number attribute; use eq, ne, gt, ge, lt, le or pr",
		'asset',
	],
	[
		'purchasedDate ge "2021-02-30"',
		1,
		'"2021-02-30" is not a real date or date-time (for \'purchasedDate\')',
		'asset',
	],
	[
		'purchasedDate ge "last week"',
		1,
		'\'purchasedDate\' is a date: expected a date like "2024-05-01" or a date-time like "2024-05-01T10:30:00Z", found "last week"',
		'asset',
	],
	[
		'status eq "Broken"',
		1,
		'"Broken" is not a value of \'status\' (expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired)',
		'asset',
	],
	[
		'status eq "Deployd"',
		1,
		"\"Deployd\" is not a value of 'status' (expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired) (did you mean 'Deployed'?)",
		'asset',
	],
	[
		'status[value eq "x"]',
		1,
		"'status' is not a list of objects; '[...]' applies to lists such as lineItems",
		'asset',
	],
	[
		'netPrice eq "12"',
		1,
		"'netPrice' is a number attribute: expected a number after 'eq', found \"12\"",
		'asset',
	],
	[
		'isEncrypted eq "true"',
		1,
		"'isEncrypted' is a true/false attribute: expected true or false after 'eq', found \"true\"",
		'asset',
	],
	[
		'deviceName eq 12',
		1,
		"'deviceName' is a text attribute: expected a quoted string after 'eq', found 12",
		'asset',
	],
	['deviceName gt null', 1, "null can only be compared with eq or ne (found 'gt null')", 'asset'],
	['status.code eq "x"', 1, "'status' has no sub-attributes ('status.code')", 'asset'],
	[
		'lastModifiedBy.mail eq "x"',
		1,
		"unknown attribute 'lastModifiedBy.mail' (did you mean 'lastModifiedBy.email'?)",
		'asset',
	],
	[
		'lineItems eq "x"',
		1,
		"operator 'eq' does not apply to 'lineItems', a list of line item objects (use lineItems[<condition>] or pr)",
		'contract',
	],
	[
		'lineItems[units gt 3]',
		11,
		"unknown attribute 'units' (did you mean 'unitCount'?)",
		'contract',
	],
	[
		'type eq "Other" and vendorName pr',
		1,
		'"Other" is not a value of \'type\' (expected one of OrderForm, MSA, PurchaseOrder, GenericContract)',
		'contract',
	],
	[
		'vendorName pr and agreementDate gt 2021',
		19,
		'\'agreementDate\' is a date: expected a quoted date like "2024-05-01" or date-time like "2024-05-01T10:30:00Z", found 2021',
		'contract',
	],
	[
		'customFieldValues.a.b eq 1',
		1,
		"a custom field is addressed as 'customFieldValues.<name>', without further parts ('customFieldValues.a.b')",
		'asset',
	],
	[
		'customFieldValues eq 1',
		1,
		"operator 'eq' does not apply to 'customFieldValues', a map of custom fields (compare one of them as customFieldValues.<name>, or use pr)",
		'asset',
	],
];

describe('filter errors name the column, what was found and what was expected', () => {
	test.each(syntaxErrors)('%j → column %i', (text, column, message) => {
		const error = errorOf(text);
		expect(error.message).toBe(`column ${column}: ${message}`);
		expect(error.column).toBe(column);
	});

	test.each(schemaErrors)('%j → column %i', (text, column, message, resource) => {
		const error = errorOf(text, resource === 'asset' ? assetSchema : contractSchema);
		expect(error.message).toBe(`column ${column}: ${message}`);
	});

	test('every problem of a filter is reported, the first one first', () => {
		expect(errorOf('stauts eq "New" or netPrice co 3').message).toBe(
			"column 1: unknown attribute 'stauts' (did you mean 'status'?); column 20: operator 'co' does not apply to 'netPrice', a number attribute; use eq, ne, gt, ge, lt, le or pr",
		);
	});

	test('the table is as large as promised', () => {
		expect(syntaxErrors.length + schemaErrors.length).toBeGreaterThanOrEqual(30);
	});

	test('valid filters of every kind pass', () => {
		for (const text of [
			'STATUS EQ "deployed" AND NOT (lastSyncDtm PR)',
			'customFieldValues.memoryGb ge 16 or customFields.costCenter sw "EU-"',
			'lastModifiedBy.email ew "@example.com"',
			'purchasedDate lt "2024-01-01T00:00:00Z" and netPrice le 1e3',
			'notes eq null',
		]) {
			expect(() => checkFilter(text, assetSchema)).not.toThrow();
		}
		expect(() =>
			checkFilter(
				'lineItems[unitCount gt 100 and currency eq "EUR"] and isAutomaticRenewal eq true',
				contractSchema,
			),
		).not.toThrow();
	});
});
