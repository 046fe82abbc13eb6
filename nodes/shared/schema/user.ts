import {
	boolean,
	dateTime,
	email,
	list,
	object,
	stringList,
	text,
	type Fields,
	type ResourceSchema,
} from './fields';

/** SCIM 2.0 user, as the service returns it (read-only through this integration). */
export const userSchema: ResourceSchema = {
	noun: 'user',
	filterExample: 'active eq true and userName ew "@example.com"',
	simpleFields: ['id', 'userName', 'displayName', 'title', 'active'],
	fields: {
		id: text('ID', { readOnly: true }),
		userName: text('User Name', { readOnly: true, description: 'Usually the e-mail address' }),
		name: object(
			'Name',
			{
				formatted: text('Formatted Name'),
				givenName: text('Given Name'),
				familyName: text('Family Name'),
			},
			{ readOnly: true },
		),
		displayName: text('Display Name', { readOnly: true }),
		title: text('Title', { readOnly: true }),
		locale: text('Locale', { readOnly: true }),
		preferredLanguage: text('Preferred Language', { readOnly: true }),
		active: boolean('Active', { readOnly: true }),
		emails: list(
			'Emails',
			'Email',
			{ value: email('Email'), type: text('Type'), primary: boolean('Primary') },
			{ readOnly: true },
		),
		roles: list(
			'Roles',
			'Role',
			{ value: text('Value'), display: text('Display'), primary: boolean('Primary') },
			{ readOnly: true },
		),
		meta: object(
			'Meta',
			{
				created: dateTime('Created'),
				lastModified: dateTime('Last Modified'),
				resourceType: text('Resource Type'),
			},
			{ readOnly: true },
		),
	},
};

/** The URI of SCIM's core User schema (RFC 7643 §4.1). */
export const SCIM_CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** The URI of SCIM's enterprise User extension (RFC 7643 §4.3). */
export const SCIM_ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A multi-valued attribute's element as RFC 7643 §2.4 defines it. */
const multiValued = (displayName: string, itemName: string, extra: Fields = {}) =>
	list(
		displayName,
		itemName,
		{
			value: text('Value'),
			display: text('Display'),
			type: text('Type'),
			primary: boolean('Primary'),
			$ref: text('Reference'),
			...extra,
		},
		{ readOnly: true },
	);

/**
 * A SCIM User as RFC 7643 defines it (common attributes, the core User schema, the enterprise
 * extension under its URI): what the Filter Expression of the User node is checked against.
 * Attributes are open: a server may have attributes of its own, which pass with a notice.
 */
export const scimUserFilterSchema: ResourceSchema = {
	noun: 'user',
	filterExample: userSchema.filterExample,
	coreSchema: SCIM_CORE_USER,
	openAttributes: true,
	fields: {
		schemas: stringList('Schemas'),
		id: text('ID'),
		externalId: text('External ID'),
		meta: object('Meta', {
			resourceType: text('Resource Type'),
			created: dateTime('Created'),
			lastModified: dateTime('Last Modified'),
			location: text('Location'),
			version: text('Version'),
		}),
		userName: text('User Name'),
		name: object('Name', {
			formatted: text('Formatted Name'),
			familyName: text('Family Name'),
			givenName: text('Given Name'),
			middleName: text('Middle Name'),
			honorificPrefix: text('Honorific Prefix'),
			honorificSuffix: text('Honorific Suffix'),
		}),
		displayName: text('Display Name'),
		nickName: text('Nick Name'),
		profileUrl: text('Profile URL'),
		title: text('Title'),
		userType: text('User Type'),
		preferredLanguage: text('Preferred Language'),
		locale: text('Locale'),
		timezone: text('Time Zone'),
		active: boolean('Active'),
		emails: multiValued('Emails', 'Email', { value: email('Email') }),
		phoneNumbers: multiValued('Phone Numbers', 'Phone Number'),
		ims: multiValued('Instant Messaging', 'Address'),
		photos: multiValued('Photos', 'Photo'),
		addresses: multiValued('Addresses', 'Address', {
			formatted: text('Formatted'),
			streetAddress: text('Street Address'),
			locality: text('Locality'),
			region: text('Region'),
			postalCode: text('Postal Code'),
			country: text('Country'),
		}),
		groups: multiValued('Groups', 'Group'),
		entitlements: multiValued('Entitlements', 'Entitlement'),
		roles: multiValued('Roles', 'Role'),
		x509Certificates: multiValued('Certificates', 'Certificate'),
		[SCIM_ENTERPRISE_USER]: object('Enterprise User', {
			employeeNumber: text('Employee Number'),
			costCenter: text('Cost Center'),
			organization: text('Organization'),
			division: text('Division'),
			department: text('Department'),
			manager: object('Manager', {
				value: text('Manager ID'),
				$ref: text('Manager Reference'),
				displayName: text('Manager Name'),
			}),
		}),
	},
};
