import type { IDataObject, INode } from 'n8n-workflow';
import { normalizeValue } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { contractSchema, lineItemFields } from '../../shared/schema/contract';
import type { Field, ResourceSchema } from '../../shared/schema/fields';
import { validateRecord, type FieldIssue } from '../../shared/schema/validate';
import { hasValue, isPlainObject } from '../../shared/schema/values';
import type { AbsentColumn } from '../../shared/sync/columns';
import {
	fromExportText,
	refuseSwappedDate,
	unreadHint,
	type ExportFormats,
} from '../../shared/sync/exportText';
import { cleanKey, type PlaceholderTest } from '../../shared/sync/keys';

/** One item per contract with its line items nested, or one item per line item (the usual export). */
export type InputShape = 'contracts' | 'lineItemRows';

/** What the source owns and how its items are read. */
export interface ContractOwnership {
	shape: InputShape;
	/** Contract fields compared and written (`documents` among them when owned); not the key. */
	fields: readonly string[];
	/** Fields used for new contracts only, never compared or written on existing ones. */
	createOnly: readonly string[];
	/** Line item fields compared and written; none: line items are not synced. */
	lineFields: readonly string[];
	/** A line item in a contract that the source no longer has: kept or removed. */
	missingLineItems: 'keep' | 'remove';
	/** Which of those Remove Them may remove (never a line a person added). */
	linesOwned:
		{ kind: 'shape' } | { kind: 'any' } | { kind: 'pattern'; test: (key: string) => boolean };
	/** The source owns each contract's whole list: lines without External ID replace it. */
	wholeList: boolean;
	/** A field an item does not carry: left as it is, or cleared. */
	absent: 'keep' | 'clear';
	isPlaceholder: PlaceholderTest;
	timezone: string;
	/** How the export writes dates and numbers (Date Format, Number Format). */
	formats: ExportFormats;
	/** The node, which refuses a date column written in the other day/month order. */
	node: INode;
}

/** The prefix of a line item's columns in a line-item row (Map Columns ids too). */
export const LINE_PREFIX = 'lineItem.';

/** A line item's fields, as validation checks a line on its own. */
export const lineSchema: ResourceSchema = {
	noun: 'line item',
	fields: lineItemFields,
	filterExample: '',
};

export const fieldLabel = (name: string): string =>
	name.startsWith(LINE_PREFIX)
		? `Line Item ${lineItemFields[name.slice(LINE_PREFIX.length)]?.displayName ?? name}`
		: (contractSchema.fields[name]?.displayName ?? name);
export const fieldName = (name: string): string => `${fieldLabel(name)} (${name})`;

/** Where a line item field is read from, as messages name it. */
const lineColumn = (own: ContractOwnership, name: string) =>
	own.shape === 'lineItemRows' ? `${LINE_PREFIX}${name}` : `lineItems[].${name}`;

/**
 * One input item as its columns give it: contract fields by API name (absent: not carried), and
 * its line item (a row) or line items (a contract) by line item field names.
 */
export interface ItemColumns {
	fields: IDataObject;
	/** A line-item row's line: the fields it carries. */
	line?: IDataObject;
	/** A contract item's `lineItems`, as given; undefined: not carried. */
	lines?: unknown;
}

/** An item's columns read by field names: a row's line as `lineItem.<field>` or `lineItem: {...}`. */
export function columnsByName(json: IDataObject, own: ContractOwnership): ItemColumns {
	const fields: IDataObject = {};
	for (const name of ['externalId', ...own.fields, ...own.createOnly])
		if (json[name] !== undefined) fields[name] = json[name];
	if (!own.lineFields.length) return { fields };
	if (own.shape === 'contracts') return { fields, lines: json.lineItems };
	const nested = isPlainObject(json.lineItem) ? json.lineItem : {};
	const line: IDataObject = {};
	for (const name of ['externalId', ...own.lineFields]) {
		const value = json[`${LINE_PREFIX}${name}`] ?? nested[name];
		if (value !== undefined) line[name] = value as IDataObject[string];
	}
	return { fields, line };
}

/** The columns read that no item carries: key, owned and create-only fields, line item fields. */
export function absentColumns(
	columns: readonly ItemColumns[],
	own: ContractOwnership,
	where: (column: string) => { soughtAs: string[]; where: string },
): AbsentColumn[] {
	const carried = new Set<string>();
	let lineSeen = false;
	for (const { fields, line, lines } of columns) {
		for (const name of Object.keys(fields)) carried.add(name);
		for (const name of Object.keys(line ?? {})) carried.add(lineColumn(own, name));
		if (lines !== undefined) carried.add('lineItems');
		for (const element of Array.isArray(lines) ? lines : []) {
			if (!isPlainObject(element)) continue;
			lineSeen = true;
			for (const name of Object.keys(element)) carried.add(lineColumn(own, name));
		}
	}
	const read = [...new Set(['externalId', ...own.fields, ...own.createOnly])];
	if (own.lineFields.length && own.shape === 'contracts') read.push('lineItems');
	// a contract item's line columns can be told missing only where some item has line items
	if (own.lineFields.length && (own.shape === 'lineItemRows' || lineSeen))
		read.push(
			...own.lineFields.map((name) => lineColumn(own, name)),
			...(own.wholeList ? [] : [lineColumn(own, 'externalId')]),
		);
	return read
		.filter((column) => !carried.has(column))
		.map((column) => {
			const line = /^lineItems?(?:\[\])?\.(.+)$/.exec(column);
			const label = line ? `Line Item ${lineItemFields[line[1]]?.displayName ?? line[1]}` : '';
			return { name: line ? `${label} (${column})` : fieldName(column), ...where(column) };
		});
}

/** A text that names an enum value by its value or its words, case aside: "purchase order". */
function enumValue(field: Field | undefined, value: unknown): unknown {
	if (field?.type !== 'enum' || typeof value !== 'string') return value;
	const form = value.replace(/\s+/g, '').toLowerCase();
	return field.values.find((candidate) => candidate.toLowerCase() === form) ?? value;
}

/** Documents as an export gives them: a list of {linkUrl, description}, of URLs, or URLs in text. */
function documentsFrom(value: unknown): unknown {
	const urls = (text: string) => text.split(/[\s,;]+/).filter(Boolean);
	if (typeof value === 'string') return urls(value).map((linkUrl) => ({ linkUrl }));
	if (!Array.isArray(value)) return value;
	return value.map((element) =>
		typeof element === 'string' ? { linkUrl: element.trim() } : element,
	);
}

/**
 * A source value as compared and written: read in the export's formats (amounts with separators,
 * locale dates, codes in lower case, enum values in words), normalized; null when it has none.
 */
function sourceValue(field: Field | undefined, value: unknown, own: ContractOwnership): unknown {
	let read = enumValue(field, value);
	if (field?.type === 'currency' && typeof read === 'string' && /^\s*[a-z]{3}\s*$/i.test(read))
		read = read.trim().toUpperCase();
	if (field?.type === 'list') read = documentsFrom(read);
	const normalized = normalizeValue(field, fromExportText(field, read, own.formats), own.timezone);
	return hasValue(normalized) ? normalized : null;
}

/** The raw value an issue's path names: `renewalDate`, `lineItem.endDate`, `lineItems[2].endDate`. */
function rawAt(columns: ItemColumns, path: string): unknown {
	const line = /^lineItem(?:s\[(\d+)\])?\.(\w+)$/.exec(path);
	if (!line) return columns.fields[path];
	const element =
		line[1] === undefined ? columns.line : (columns.lines as unknown[] | undefined)?.[+line[1]];
	return isPlainObject(element) ? element[line[2]] : undefined;
}

/**
 * Says, after an issue with a value the export wrote, what was not read and what to set: the
 * Date Format for a day-first or month-first date, the Number Format for an amount the other
 * format reads, the yes/no words read.
 */
function hintUnread(issues: FieldIssue[], columns: ItemColumns, own: ContractOwnership): void {
	for (const issue of issues) {
		const line = /^lineItems?(?:\[\d+\])?\.(\w+)$/.exec(issue.path);
		const field = line ? lineItemFields[line[1]] : contractSchema.fields[issue.path];
		if (field) issue.message += unreadHint(field, rawAt(columns, issue.path), own.formats);
	}
}

/** A line item of the source: its key and owned values. */
export interface SourceLine {
	item: number;
	/** Its External ID, trimmed; undefined when blank or a placeholder. */
	key?: string;
	placeholder?: string;
	/** Owned line item fields (null: cleared); a field not carried is left out unless absent clears. */
	values: IDataObject;
	/** Where it is in the item, for messages: `lineItem`, `lineItems[2]`. */
	path: string;
}

/** One input item as read. */
export interface SourceItem {
	item: number;
	/** The contract's External ID, trimmed; undefined when blank or a placeholder. */
	key?: string;
	placeholder?: string;
	values: IDataObject;
	createValues: IDataObject;
	/** A row's line item; undefined when its line columns are empty. */
	line?: SourceLine;
	/** A contract item's line items; undefined when it does not say (absent, Leave As Is). */
	lines?: SourceLine[];
	error?: InvalidItemError;
}

/**
 * The owned fields of `given` as source values; absent ones left out when absent keeps. A date in
 * the other day/month order refuses the run, naming its column (`column`) and item.
 */
function readValues(
	names: readonly string[],
	given: IDataObject,
	fields: ResourceSchema['fields'],
	own: ContractOwnership,
	keepAbsent: boolean,
	where: { item: number; column: (name: string) => string },
): IDataObject {
	const values: IDataObject = {};
	for (const name of names) {
		if (given[name] === undefined && keepAbsent) continue;
		refuseSwappedDate(
			own.node,
			() => where.column(name),
			where.item,
			fields[name],
			given[name],
			own.formats,
		);
		values[name] = sourceValue(fields[name], given[name], own) as IDataObject[string];
	}
	return values;
}

function readLine(
	item: number,
	given: IDataObject,
	path: string,
	own: ContractOwnership,
	issues: FieldIssue[],
): SourceLine {
	const key = cleanKey(given.externalId);
	const placeholder = key !== undefined && own.isPlaceholder(key) ? key : undefined;
	const values = readValues(own.lineFields, given, lineItemFields, own, own.absent === 'keep', {
		item,
		column: (name) => `Line Item ${lineItemFields[name]?.displayName ?? name} (${path}.${name})`,
	});
	for (const issue of validateRecord(lineSchema, values, { mode: 'patch' }))
		issues.push({
			...issue,
			path: `${path}.${issue.path}`,
			label: issue.label && `Line Item ${issue.label}`,
		});
	return { item, key: placeholder === undefined ? key : undefined, placeholder, values, path };
}

/** Whether a row carries a line item: its line columns hold a value. */
const hasLine = (line: IDataObject | undefined) => Object.values(line ?? {}).some(hasValue);

/** Reads one item: the contract's key, owned values, its line item(s), checked against the schema. */
export function readItem(item: number, columns: ItemColumns, own: ContractOwnership): SourceItem {
	const { fields } = columns;
	const key = cleanKey(fields.externalId);
	const placeholder = key !== undefined && own.isPlaceholder(key) ? key : undefined;
	const keepAbsent = own.absent === 'keep';
	const where = { item, column: fieldName };
	const values = readValues(own.fields, fields, contractSchema.fields, own, keepAbsent, where);
	const createValues: IDataObject = {};
	for (const name of own.createOnly) {
		const field = contractSchema.fields[name];
		refuseSwappedDate(own.node, () => fieldName(name), item, field, fields[name], own.formats);
		const value = sourceValue(field, fields[name], own);
		if (value !== null) createValues[name] = value as IDataObject[string];
	}
	const issues = validateRecord(contractSchema, { ...values, ...createValues }, { mode: 'patch' });
	const read: SourceItem = {
		item,
		key: placeholder === undefined ? key : undefined,
		placeholder,
		values,
		createValues,
	};
	if (own.lineFields.length && own.shape === 'lineItemRows' && hasLine(columns.line))
		read.line = readLine(item, columns.line!, 'lineItem', own, issues);
	if (own.lineFields.length && own.shape === 'contracts') {
		const given = columns.lines === undefined && !keepAbsent ? null : columns.lines;
		if (given === null || given === '') read.lines = [];
		else if (Array.isArray(given)) {
			read.lines = [];
			given.forEach((element, index) => {
				if (isPlainObject(element))
					read.lines!.push(
						readLine(item, element as IDataObject, `lineItems[${index}]`, own, issues),
					);
				else
					issues.push({
						path: `lineItems[${index}]`,
						label: 'Line Item',
						message: `expected a line item object, got ${JSON.stringify(element)}`,
					});
			});
		} else if (given !== undefined)
			issues.push({
				path: 'lineItems',
				label: 'Line Items',
				message: `expected a list of line item objects, got ${JSON.stringify(given)}`,
			});
	}
	hintUnread(issues, columns, own);
	if (issues.length) read.error = new InvalidItemError('source row', issues);
	return read;
}
