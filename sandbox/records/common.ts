import type { CustomFieldDefinition } from '../../nodes/shared/schema/asset';
import type { Field, Fields, ResourceSchema } from '../../nodes/shared/schema/fields';
import {
	findDefinition,
	validateRecord,
	type ValidateOptions,
} from '../../nodes/shared/schema/validate';
import { hasValue, toCalendarDate } from '../../nodes/shared/schema/values';
import { Answer, badInput, invalid, issuesToErrors, notFound, problem } from '../problems';
import type { RecordTable, StoredRecord } from '../store';

/** `{userId, name, email}`: who created, changed or holds a record. */
export interface Person {
	userId: string;
	name: string;
	email: string;
}

/** What a write needs besides the body. */
export interface WriteContext {
	actor: Person;
	stamp: () => string;
	customFieldDefinitions: readonly CustomFieldDefinition[];
}

/** Validates a write body against a schema; throws the §7 problem naming every bad field. */
export function validateBody(
	schema: ResourceSchema,
	body: unknown,
	mode: ValidateOptions['mode'],
	customFieldDefinitions?: readonly CustomFieldDefinition[],
): Record<string, unknown> {
	const issues = validateRecord(schema, body, {
		mode,
		unknownFields: 'ignore',
		customFieldDefinitions,
	});
	if (issues.length) throw new Answer(invalid(issuesToErrors(issues)));
	return body as Record<string, unknown>;
}

/** Values without a value are not stored; a list is kept as sent, `[]` too (§4: returned as `[]`). */
const isStored = (field: Field, value: unknown): boolean =>
	field.type === 'list' ? Array.isArray(value) : hasValue(value);

/**
 * The writable fields of a valid body in stored form, in schema order: dates as
 * `YYYY-MM-DDT00:00:00Z`, date-times as ISO with milliseconds and `Z`, empty values left out.
 * Custom field maps are keyed by the definition's lookup key when there is one.
 */
export function normalizeFields(
	fields: Fields,
	body: Record<string, unknown>,
	definitions: readonly CustomFieldDefinition[] = [],
): Record<string, unknown> {
	const stored: Record<string, unknown> = {};
	for (const [key, field] of Object.entries(fields)) {
		const value = body[key];
		if (field.readOnly || !isStored(field, value)) continue;
		let result: unknown = value;
		switch (field.type) {
			case 'date':
				result = `${toCalendarDate(value as string)}T00:00:00Z`;
				break;
			case 'dateTime':
				result = new Date(value as string).toISOString();
				break;
			case 'object':
				result = normalizeFields(field.fields, value as Record<string, unknown>, definitions);
				break;
			case 'list':
				result = (value as Record<string, unknown>[]).map((element) =>
					normalizeFields(field.fields, element, definitions),
				);
				break;
			case 'customFields': {
				const entries = Object.entries(value as Record<string, unknown>).filter(([, custom]) =>
					hasValue(custom),
				);
				result = Object.fromEntries(
					entries.map(([name, custom]) => [
						findDefinition(name, definitions)?.lookupKey ?? name,
						custom,
					]),
				);
				break;
			}
		}
		if (isStored(field, result)) stored[key] = result;
	}
	return stored;
}

/** A stored record: server fields first (as the schema lists them), then the data. */
export function withMetadata(
	id: string,
	data: Record<string, unknown>,
	previous: StoredRecord | undefined,
	context: WriteContext,
): StoredRecord {
	const stamp = context.stamp();
	return {
		id,
		createdDtm: previous?.createdDtm ?? stamp,
		lastModifiedDtm: stamp,
		createdBy: previous?.createdBy ?? context.actor,
		lastModifiedBy: context.actor,
		...data,
	};
}

/** Which record a PUT replaces (undefined: create one), per service-behaviour.md §5. */
export function findTarget(
	table: RecordTable,
	body: Record<string, unknown>,
	routeId?: string,
): StoredRecord | undefined {
	const bodyId = typeof body.id === 'string' && body.id !== '' ? body.id : undefined;
	if (routeId !== undefined && bodyId !== undefined && routeId !== bodyId) {
		throw badInput('id', `the body's id '${bodyId}' differs from the id in the path '${routeId}'`);
	}
	const id = routeId ?? bodyId;
	const byId = id === undefined ? undefined : table.get(id);
	const externalId = typeof body.externalId === 'string' ? body.externalId : undefined;
	const byExternalId = externalId === undefined ? undefined : table.findByExternalId(externalId);
	if (byId && byExternalId && byId !== byExternalId) {
		throw conflict(table.noun, byId.id, externalId as string, byExternalId.id);
	}
	const target = byId ?? byExternalId;
	if (!target && routeId !== undefined) {
		throw notFound(`No ${table.noun} has the id '${routeId}' or the externalId '${externalId}'.`);
	}
	return target;
}

/** A 409: the write would give a second record an externalId that is taken. */
export function conflict(noun: string, id: string, externalId: string, ownerId: string): Answer {
	return new Answer(
		problem(409, {
			detail: `The externalId '${externalId}' belongs to the ${noun} '${ownerId}', not '${id}'.`,
		}),
	);
}
