import {
	boolean,
	currency,
	date,
	email,
	list,
	number,
	oneOf,
	recordMetadata,
	text,
	url,
	type Fields,
	type ResourceSchema,
} from './fields';

export const CONTRACT_TYPES = ['OrderForm', 'MSA', 'PurchaseOrder', 'GenericContract'] as const;
export const PAYMENT_METHODS = ['CreditCard', 'Invoice'] as const;

export const lineItemFields: Fields = {
	externalId: text('External ID', {
		description:
			'Identifier of the line item. A line item sent with an External ID updates the existing one with that ID.',
	}),
	description: text('Description', { required: true }),
	notes: text('Notes', { multiline: true }),
	unitCount: number('Unit Count', { min: 0, description: 'Number of units' }),
	amount: number('Amount', {
		min: 0,
		description: 'Price per unit; when Unit Count is empty, the price of the whole line item',
	}),
	currency: currency('Currency', {
		description: "ISO 4217 code; when empty, the organization's base currency is assumed",
	}),
	startDate: date('Start Date'),
	endDate: date('End Date', { description: 'Exclusive end date' }),
	baseAmount: number('Base Amount', {
		readOnly: true,
		description: "The amount in the organization's base currency",
	}),
	baseCurrency: currency('Base Currency', { readOnly: true }),
};

export const documentFields: Fields = {
	linkUrl: url('Link URL', { required: true, description: 'URL of the document' }),
	description: text('Description'),
};

export const contractSchema: ResourceSchema = {
	noun: 'contract',
	filterExample: 'isAutomaticRenewal eq true and lineItems[unitCount gt 100]',
	simpleFields: [
		'id',
		'externalId',
		'ref',
		'type',
		'vendorName',
		'agreementDate',
		'renewalDate',
		'terminationNoticeDays',
		'isAutomaticRenewal',
		'businessOwnerEmail',
		'lastModifiedDtm',
	],
	fields: {
		...recordMetadata,
		externalId: text('External ID', {
			required: true,
			description: 'Unique identifier, e.g. from a source system. Create or Update matches on it.',
		}),
		ref: text('Reference', { required: true, placeholder: 'e.g. PO-2024-0042' }),
		type: oneOf('Type', CONTRACT_TYPES, { required: true }),
		vendorName: text('Vendor Name', { required: true }),
		agreementDate: date('Agreement Date', { required: true }),
		renewalDate: date('Renewal Date'),
		terminationNoticeDays: number('Termination Notice Days', {
			min: 0,
			integer: true,
			description: 'Days of notice required to terminate',
		}),
		isAutomaticRenewal: boolean('Is Automatic Renewal', {
			absentMeans: false,
			description: 'Whether the contract renews automatically',
		}),
		notes: text('Notes', { multiline: true }),
		paymentMethod: oneOf('Payment Method', PAYMENT_METHODS),
		businessOwnerEmail: email('Business Owner Email'),
		lineItems: list('Line Items', 'Line Item', lineItemFields),
		documents: list('Documents', 'Document', documentFields),
	},
};
