import { boolean, dateTime, email, list, object, text, type ResourceSchema } from './fields';

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
