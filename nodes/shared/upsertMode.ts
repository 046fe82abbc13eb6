import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import { fieldProperty, optionalFieldProperties } from './descriptions/recordFields';
import { findByField } from './lookup';
import { InvalidItemError } from './runItems';
import type { ResourceSchema } from './schema/fields';
import { validateRecord, type ValidateOptions } from './schema/validate';
import type { RetryPolicy } from './transport';

export type UpsertMode = 'merge' | 'replace';

/**
 * Create or Update's Mode. Version 1 had none and always replaced: a hidden parameter keeps
 * saved workflows of that version as they were.
 */
export function upsertModeProperties(noun: string): INodeProperties[] {
	return [
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'hidden',
			default: 'replace',
			displayOptions: { show: { '@version': [1] } },
		},
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			options: [
				{
					name: 'Merge',
					value: 'merge',
					description: `Change only the fields given; an existing ${noun} keeps every other field. A new ${noun} needs the required fields.`,
				},
				{
					name: 'Replace',
					value: 'replace',
					description: `Write the ${noun} exactly as given: on an existing ${noun}, every field left out is cleared`,
				},
			],
			default: 'merge',
			displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
		},
	];
}

/**
 * The form in Merge mode: the External ID that finds the record, and the fields to set, each
 * sent only when added (so no default overwrites a stored value the user did not set).
 */
export function mergeFormProperties(schema: ResourceSchema): INodeProperties[] {
	return [
		{ ...fieldProperty('externalId', schema.fields.externalId), required: true },
		{
			displayName: 'Fields to Set',
			name: 'fieldsToSet',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			description: `Fields to write; fields not added keep their values. A new ${schema.noun} needs every required field.`,
			options: optionalFieldProperties(schema, true).filter(
				(property) => property.name !== 'externalId',
			),
		},
	];
}

/** One Create or Update item, ready to write. */
export interface UpsertItem {
	body: IDataObject;
	retry: RetryPolicy;
	mode: UpsertMode;
	/** How the record is checked should it turn out to be new (Merge validates it as a change first). */
	validation: Omit<ValidateOptions, 'mode'>;
	/** Merge: the stored record with this External ID, when there is one. */
	existing?: IDataObject;
	/** This item's place among the items of the run with the same External ID. */
	turn?: Turn;
}

/** What an item left for the next one with its External ID: the record it wrote, or its failure. */
type TurnResult = { record?: IDataObject; failedItem?: number };

/**
 * Items of one run with the same External ID are written one after another, in item order, so
 * the last one given is what stays. Merge: the first creates the record (or changes the stored
 * one), each next one merges into what the one before it wrote; written at once, two PUTs of a
 * new record would replace each other and two changes would undo each other. Replace: written
 * at once, they would reach the service in any order and any of them could be the one kept.
 */
interface Turn {
	item: number;
	/** The previous item's result; none for the first. */
	previous?: Promise<TurnResult>;
	done(result: TurnResult): void;
}

export const readUpsertMode = (context: IExecuteFunctions, i: number): UpsertMode =>
	context.getNodeParameter('mode', i, 'replace') === 'merge' ? 'merge' : 'replace';

/**
 * Work on all of a run's Create or Update items before any is written. Merge's lookup: the stored
 * records of every Merge item, by External ID, in batches (one list request for many items). An
 * item whose record does not exist yet is created, so it must then be a whole record: checked
 * here, before anything is written. With `byId`, an item that names a service ID is written to
 * that record without a lookup. Then items that name the same record take turns (see Turn),
 * whatever their mode.
 */
export function upsertBatch(schema: ResourceSchema, path: string, nouns: string, byId = false) {
	return async function batch(
		this: IExecuteFunctions,
		prepared: Map<number, UpsertItem>,
	): Promise<Map<number, unknown>> {
		const merging = [...prepared].filter(
			([, item]) => item.mode === 'merge' && !(byId && typeof item.body.id === 'string'),
		);
		const failures = new Map<number, unknown>();
		let found = new Map<string, IDataObject[]>();
		if (merging.length) {
			const [firstIndex, first] = merging[0];
			try {
				found = await findByField(
					this,
					path,
					nouns,
					'externalId',
					merging.map(([, item]) => String(item.body.externalId)),
					{ retry: first.retry, itemIndex: firstIndex, label: 'External ID' },
				);
			} catch (error) {
				for (const [i] of merging) failures.set(i, error);
			}
		}
		const lookedUp = new Set(merging.map(([i]) => i));
		const byRecord = new Map<string, Array<[number, UpsertItem]>>();
		for (const entry of prepared) {
			const key = recordKey(entry[1]);
			if (key === undefined || failures.has(entry[0])) continue;
			const twins = byRecord.get(key);
			if (twins) twins.push(entry);
			else byRecord.set(key, [entry]);
		}
		for (const items of byRecord.values()) {
			let previous: Promise<TurnResult> | undefined;
			for (const [i, item] of items) {
				if (lookedUp.has(i)) {
					[item.existing] = found.get(String(item.body.externalId)) ?? [];
					if (!item.existing && !previous) {
						const issues = creationIssues(schema, item);
						if (issues) {
							failures.set(i, issues);
							// its twins take their turns after it, as after a failed write
							previous = Promise.resolve({ failedItem: i });
							continue;
						}
					}
				}
				if (items.length === 1) continue;
				let done!: (result: TurnResult) => void;
				const result = new Promise<TurnResult>((resolve) => (done = resolve));
				item.turn = { item: i, previous, done };
				previous = result;
			}
		}
		return failures;
	};
}

/** The record an item writes, as far as its fields tell: its External ID, else its service ID. */
function recordKey({ body }: UpsertItem): string | undefined {
	if (body.externalId !== undefined && body.externalId !== null) {
		return `externalId ${String(body.externalId)}`;
	}
	return typeof body.id === 'string' ? `id ${body.id}` : undefined;
}

/** Why an item cannot create its record, if it cannot: fields a new record needs. */
function creationIssues(schema: ResourceSchema, item: UpsertItem): InvalidItemError | undefined {
	// nothing to clear on a record that does not exist yet
	item.body = Object.fromEntries(
		Object.entries(item.body).filter(([, value]) => value !== null),
	) as IDataObject;
	const issues = validateRecord(schema, item.body, { ...item.validation, mode: 'replace' });
	if (!issues.length) return undefined;
	return new InvalidItemError(
		`new ${schema.noun} (no ${schema.noun} has External ID ${JSON.stringify(item.body.externalId)} yet)`,
		issues,
	);
}

/**
 * Writes an item in its turn (see Turn). Merge: `write` gets the record to merge into, the one
 * the previous item with the same External ID wrote, else the stored one; none when it creates.
 * Replace needs nothing from the item before it, so a failure there does not stop it.
 */
export async function writeInTurn(
	context: IExecuteFunctions,
	item: UpsertItem,
	write: (existing: IDataObject | undefined) => Promise<IDataObject>,
): Promise<IDataObject> {
	const { turn } = item;
	if (!turn) return await write(item.existing);
	const before: TurnResult = turn.previous ? await turn.previous : { record: item.existing };
	// what the next item with this External ID finds: a failure unless the write succeeds
	let result: TurnResult = { failedItem: turn.item };
	try {
		if (item.mode === 'merge' && before.failedItem !== undefined) {
			result = { failedItem: before.failedItem };
			throw new NodeOperationError(
				context.getNode(),
				`Not written: item ${before.failedItem}, with the same External ID ${JSON.stringify(item.body.externalId)}, failed before it`,
				{
					description: `Items with the same External ID are written in item order, each merging into what the one before it wrote; this one depends on item ${before.failedItem}. Correct that item and run again.`,
				},
			);
		}
		const record = await write(item.mode === 'merge' ? before.record : undefined);
		result = { record };
		return record;
	} finally {
		turn.done(result);
	}
}
