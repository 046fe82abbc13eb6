import {
	checkFilter,
	FilterError,
	inspectFilter,
	parseFilter,
	printFilter,
	type FilterIssue,
} from '../../../nodes/shared/filter';
import { compileFilter } from '../../../nodes/shared/filter/evaluate';
import { assetSchema } from '../../../nodes/shared/schema/asset';
import {
	SCIM_ENTERPRISE_USER,
	scimUserFilterSchema,
	userSchema,
} from '../../../nodes/shared/schema/user';

/** RFC 7644 §3.4.2.2, the filter examples (Figure 2), as the RFC writes them. */
const RFC_7644_EXAMPLES = [
	'userName eq "bjensen"',
	'name.familyName co "O\'Malley"',
	'userName sw "J"',
	'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"',
	'title pr',
	'meta.lastModified gt "2011-05-13T04:42:34Z"',
	'meta.lastModified ge "2011-05-13T04:42:34Z"',
	'meta.lastModified lt "2011-05-13T04:42:34Z"',
	'meta.lastModified le "2011-05-13T04:42:34Z"',
	'title pr and userType eq "Employee"',
	'title pr or userType eq "Intern"',
	'schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"',
	'userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")',
	'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
	'userType eq "Employee" and (emails.type eq "work")',
	'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
	'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]',
];

const notices = (text: string) => {
	const found: FilterIssue[] = [];
	const result = inspectFilter(text, scimUserFilterSchema, (notice) => found.push(notice));
	return { result, found };
};

describe('SCIM user filters: what RFC 7644 accepts', () => {
	test('every example of RFC 7644 §3.4.2.2 is accepted with no notice, and prints back to the same tree', () => {
		const refused = RFC_7644_EXAMPLES.flatMap((text) => {
			const { result, found } = notices(text);
			return result instanceof FilterError || found.length ? [[text, String(result), found]] : [];
		});
		expect(refused).toEqual([]);
		for (const text of RFC_7644_EXAMPLES) {
			const printed = printFilter(parseFilter(text));
			expect(parseFilter(printed)).toEqual(parseFilter(printFilter(parseFilter(printed))));
			expect(printFilter(parseFilter(printed))).toBe(printed);
		}
	});

	test('qualified names, extension attributes, externalId, $ref: known, with no notice', () => {
		for (const text of [
			`${SCIM_ENTERPRISE_USER}:department eq "Sales"`,
			`${SCIM_ENTERPRISE_USER}:manager.displayName sw "Ada"`,
			`${SCIM_ENTERPRISE_USER}:manager.$ref pr`,
			'URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:active eq true',
			'externalId pr and groups.$ref co "/Groups/"',
			'emails[not (type eq "home")]',
		]) {
			expect(notices(text)).toEqual({ result: expect.anything(), found: [] });
			expect(notices(text).result).not.toBeInstanceOf(FilterError);
			expect(printFilter(checkFilter(text, scimUserFilterSchema))).toBe(
				printFilter(parseFilter(text)),
			);
		}
	});

	test('a known attribute is still checked for its type, qualified or not', () => {
		expect(
			String(notices('urn:ietf:params:scim:schemas:core:2.0:User:active eq "yes"').result),
		).toBe(
			"FilterError: column 1: 'urn:ietf:params:scim:schemas:core:2.0:User:active' is a true/false attribute: expected true or false after 'eq', found \"yes\"",
		);
		expect(String(notices('meta.created gt "yesterday"').result)).toContain(
			"'meta.created' is a date-time",
		);
	});

	test('attributes the node does not know pass with a notice naming the column', () => {
		const { result, found } = notices(
			'active eq true and department eq "Sales" and urn:example:acme:1.0:User:badge pr and phoneNumbers[kind eq "cell"]',
		);
		expect(result).not.toBeInstanceOf(FilterError);
		expect(found).toEqual([
			{
				column: 20,
				message: `'department' is an attribute of a schema extension, which RFC 7644 names in full: ${SCIM_ENTERPRISE_USER}:department; sent as written, the server decides`,
			},
			{
				column: 46,
				message:
					"'urn:example:acme:1.0:User:badge' is not an attribute the node knows of the user; sent as written, the server decides (it may refuse it or match nothing)",
			},
			{
				column: 98,
				message:
					"'kind' is not an attribute the node knows of 'phoneNumbers'; sent as written, the server decides (it may refuse it or match nothing)",
			},
		]);
	});

	test('a typo passes with a notice that says what it may have meant', () => {
		expect(notices('usrName eq "ada@example.com"').found).toEqual([
			{
				column: 1,
				message:
					"'usrName' is not an attribute the node knows of the user (did you mean 'userName'?); sent as written, the server decides (it may refuse it or match nothing)",
			},
		]);
	});

	test('structure is still checked: a schema URI without an attribute, or a broken name, is refused', () => {
		expect(String(notices('urn:ietf:params:scim:schemas:core:2.0:User: pr').result)).toBe(
			"FilterError: column 1: expected an attribute name after the schema URI 'urn:ietf:params:scim:schemas:core:2.0:User'",
		);
		expect(String(notices('urn:x:User:2bad pr').result)).toContain(
			"'urn:x:User:2bad' is not an attribute name",
		);
		expect(String(notices('emails[value eq "a"').result)).toContain("expected ']'");
		expect(String(notices('unknown eq').result)).toContain('expected a value');
	});

	test('the sandbox (open attributes off) refuses what it does not know and evaluates the rest', () => {
		const closed = { ...scimUserFilterSchema, openAttributes: false };
		expect(() => checkFilter('department eq "Sales"', closed)).toThrow(
			"column 1: unknown attribute 'department'",
		);
		const users = [
			{
				id: 'a',
				active: true,
				schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', SCIM_ENTERPRISE_USER],
				emails: [{ value: 'ada@example.com', type: 'work' }],
				[SCIM_ENTERPRISE_USER]: { department: 'Sales' },
			},
			{ id: 'b', active: false, externalId: 'E-1', emails: [{ value: 'bob@example.org' }] },
		];
		const matching = (text: string) =>
			users.filter(compileFilter(checkFilter(text, closed), closed)).map((user) => user.id);
		expect(matching('urn:ietf:params:scim:schemas:core:2.0:User:active eq false')).toEqual(['b']);
		expect(matching(`${SCIM_ENTERPRISE_USER}:department eq "sales"`)).toEqual(['a']);
		expect(matching('externalId pr')).toEqual(['b']);
		expect(matching('emails co "EXAMPLE.COM"')).toEqual(['a']);
		expect(matching(`schemas eq "${SCIM_ENTERPRISE_USER}"`)).toEqual(['a']);
	});

	test('other resources are as strict as before: no qualified names, no notices', () => {
		expect(() =>
			checkFilter('urn:ietf:params:scim:schemas:core:2.0:User:active eq true', assetSchema),
		).toThrow("unknown attribute 'urn:ietf:params:scim:schemas:core:2.0:User'");
		expect(() => checkFilter('externalId pr', userSchema)).toThrow(
			"unknown attribute 'externalId'",
		);
		expect(() => checkFilter('hardwareVendor:x eq "a"', assetSchema)).toThrow(FilterError);
	});
});
