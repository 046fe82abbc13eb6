import { assetSchema } from '../../nodes/shared/schema/asset';
import { entryKey } from '../../nodes/shared/schema/customValues';
import { findDefinition } from '../../nodes/shared/schema/validate';
import { isPlainObject } from '../../nodes/shared/schema/values';
import { Answer, invalid, notFound } from '../problems';
import type { RecordTable, ScimUser, StoredRecord, UserDirectory } from '../store';
import {
	conflict,
	findTarget,
	normalizeFields,
	validateBody,
	withMetadata,
	type Person,
	type WriteContext,
} from './common';

/**
 * `statusType` groups the statuses the way the service's UI does: stock that can be handed out,
 * devices in use, devices away, and devices gone.
 */
const STATUS_TYPES: Record<string, string> = {
	New: 'Available',
	ReadyToDeploy: 'Available',
	Deployed: 'InUse',
	OutForRepair: 'Unavailable',
	Retired: 'Retired',
};

export const statusTypeOf = (status: unknown): string | undefined =>
	typeof status === 'string' ? STATUS_TYPES[status] : undefined;

/**
 * The organisation's locations. `location {id, name}` is read-only (service-behaviour.md §4); the
 * sandbox fills it in when `locationName` names one of these, as the service links a location
 * by its name.
 */
export const LOCATIONS: ReadonlyArray<{ id: string; name: string }> = [
	{ id: '64a1f0c2e4b0a1b2c3d4e5f6', name: 'Berlin office' },
	{ id: '64a1f0c2e4b0a1b2c3d4e5f7', name: 'London office' },
	{ id: '64a1f0c2e4b0a1b2c3d4e5f8', name: 'New York office' },
	{ id: '64a1f0c2e4b0a1b2c3d4e5f9', name: 'Warehouse' },
];

const locationNamed = (name: unknown) =>
	typeof name === 'string'
		? LOCATIONS.find((location) => location.name.toLowerCase() === name.toLowerCase())
		: undefined;

/** The `{userId, name, email}` reference to a SCIM user. */
export function personOf(user: ScimUser): Person {
	const name =
		isPlainObject(user.name) && typeof user.name.formatted === 'string'
			? user.name.formatted
			: undefined;
	return {
		userId: user.id,
		name: typeof user.displayName === 'string' ? user.displayName : (name ?? user.userName),
		email: user.userName,
	};
}

/**
 * Adds the derived fields: `statusType`, `assignedTo` when the e-mail is a user's, and
 * `location` when the location name is one of the organisation's.
 */
export function withDerivedAssetFields(
	record: StoredRecord,
	findUser: (email: string) => ScimUser | undefined,
): StoredRecord {
	const { customFieldValues, customFields, location: _sent, ...rest } = record;
	const statusType = statusTypeOf(record.status);
	const user =
		typeof record.assignedToEmail === 'string' ? findUser(record.assignedToEmail) : undefined;
	const location = locationNamed(record.locationName);
	return {
		...rest,
		...(statusType ? { statusType } : {}),
		...(user ? { assignedTo: personOf(user) } : {}),
		...(location ? { location: { ...location } } : {}),
		...(customFieldValues === undefined ? {} : { customFieldValues }),
		...(customFields === undefined ? {} : { customFields }),
	};
}

export interface AssetWrites {
	table: RecordTable;
	users: UserDirectory;
}

/** PUT: create or replace (matching by id, then externalId). */
export function putAsset(
	{ table, users }: AssetWrites,
	body: unknown,
	context: WriteContext,
	routeId?: string,
): StoredRecord {
	const valid = validateBody(assetSchema, body, 'replace', context.customFieldDefinitions);
	const target = findTarget(table, valid, routeId);
	const data = normalizeFields(assetSchema.fields, valid, context.customFieldDefinitions);
	const record = withMetadata(target?.id ?? table.newId(), data, target, context);
	return table.put(withDerivedAssetFields(record, (email) => users.findByEmail(email)));
}

const CUSTOM_MAPS = ['customFieldValues', 'customFields'];

/** PATCH: fields left out stay, `null` clears, custom field maps merge by name. */
export function patchAsset(
	{ table, users }: AssetWrites,
	id: string,
	body: unknown,
	context: WriteContext,
): StoredRecord {
	const existing = table.get(id);
	if (!existing) throw notFound(`No asset has the id '${id}'.`);
	const changes = validateBody(assetSchema, body, 'patch', context.customFieldDefinitions);
	const writable = Object.keys(changes).filter(
		(key) => assetSchema.fields[key] && !assetSchema.fields[key].readOnly,
	);
	if (writable.length === 0) {
		throw new Answer(invalid({ $: ['The body changes no field; send at least one asset field.'] }));
	}
	const merged: Record<string, unknown> = { ...existing };
	for (const key of writable) {
		const value = changes[key];
		if (value === null) {
			merged[key] = undefined;
		} else if (CUSTOM_MAPS.includes(key)) {
			merged[key] = mergeCustom(merged[key], value as Record<string, unknown>, context);
		} else {
			merged[key] = value;
		}
	}
	const data = normalizeFields(
		assetSchema.fields,
		withoutUndefined(merged),
		context.customFieldDefinitions,
	);
	const cleared = Object.entries(assetSchema.fields).filter(
		([key, field]) => field.required && data[key] === undefined,
	);
	if (cleared.length) {
		throw new Answer(
			invalid(
				Object.fromEntries(cleared.map(([key]) => [key, ['is required and cannot be cleared']])),
			),
		);
	}
	const owner = table.findByExternalId(data.externalId as string);
	if (owner && owner.id !== id) throw conflict('asset', id, data.externalId as string, owner.id);
	const record = withMetadata(id, data, existing, context);
	return table.put(withDerivedAssetFields(record, (email) => users.findByEmail(email)));
}

function mergeCustom(
	current: unknown,
	changes: Record<string, unknown>,
	{ customFieldDefinitions }: WriteContext,
): Record<string, unknown> {
	const merged: Record<string, unknown> = isPlainObject(current) ? { ...current } : {};
	for (const [name, value] of Object.entries(changes)) {
		const definition = findDefinition(name, customFieldDefinitions);
		const key =
			(definition
				? entryKey(merged, definition)
				: Object.keys(merged).find(
						(candidate) => candidate.toLowerCase() === name.toLowerCase(),
					)) ?? name;
		merged[key] = value === null ? undefined : value;
	}
	return withoutUndefined(merged);
}

/** The object without the keys a PATCH cleared. */
function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
