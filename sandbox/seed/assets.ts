import type { CustomFieldDefinition } from '../../nodes/shared/schema/asset';
import { LOCATIONS, personOf, statusTypeOf } from '../records/asset';
import type { ScimUser, StoredRecord } from '../store';
import { addDays, dateOnly, SEED_ACTORS, type Seeder } from './common';
import { ASSET_NOTES, COST_CENTERS, HARDWARE, WARRANTY_PROVIDERS } from './words';

/**
 * The organisation's asset custom fields: one of every type, and the system each device comes
 * from (the scope of a device sync: `customFieldValues.source eq "Jamf"`).
 */
export const CUSTOM_FIELD_DEFINITIONS: readonly CustomFieldDefinition[] = [
	{ id: '64b7f0a1c2d3e4f5a6b7c801', name: 'Memory (GB)', lookupKey: 'memoryGb', type: 'Number' },
	{ id: '64b7f0a1c2d3e4f5a6b7c802', name: 'Cost Center', lookupKey: 'costCenter', type: 'Text' },
	{
		id: '64b7f0a1c2d3e4f5a6b7c803',
		name: 'Warranty Provider',
		lookupKey: 'warrantyProvider',
		type: 'Option',
		options: WARRANTY_PROVIDERS.map((label, index) => ({
			id: `64b7f0a1c2d3e4f5a6b7c9${String(index).padStart(2, '0')}`,
			label,
		})),
	},
	{
		id: '64b7f0a1c2d3e4f5a6b7c804',
		name: 'Purchase Cost',
		lookupKey: 'purchaseCost',
		type: 'Currency',
	},
	{
		id: '64b7f0a1c2d3e4f5a6b7c805',
		name: 'Support Portal',
		lookupKey: 'supportPortal',
		type: 'Link',
	},
	{
		id: '64b7f0a1c2d3e4f5a6b7c806',
		name: 'Last Audit Date',
		lookupKey: 'lastAuditDate',
		type: 'Date',
	},
	{
		id: '64b7f0a1c2d3e4f5a6b7c807',
		name: 'Source',
		lookupKey: 'source',
		type: 'Option',
		options: ['Jamf', 'Intune', 'Kandji', 'None'].map((label, index) => ({
			id: `64b7f0a1c2d3e4f5a6b7ca${String(index).padStart(2, '0')}`,
			label,
		})),
	},
];

const STATUSES: ReadonlyArray<readonly [string, number]> = [
	['Deployed', 0.6],
	['ReadyToDeploy', 0.12],
	['New', 0.08],
	['OutForRepair', 0.05],
	['Retired', 0.15],
];
const CURRENCY_RATES: ReadonlyArray<readonly [string, number]> = [
	['USD', 1],
	['EUR', 0.93],
	['GBP', 0.79],
];

function weighted<T>(seeder: Seeder, options: ReadonlyArray<readonly [T, number]>): T {
	let draw = seeder.random.next();
	for (const [value, weight] of options) {
		if (draw < weight) return value;
		draw -= weight;
	}
	return options[options.length - 1][0];
}

const SOURCES: Record<string, string> = {
	Mac: 'JAMF',
	iOS: 'JAMF',
	Windows: 'INTUNE',
	Android: 'INTUNE',
};

/** `count` assets, a realistic mix of laptops, phones, monitors and room devices. */
export function seedAssets(
	seeder: Seeder,
	count: number,
	users: readonly ScimUser[],
): StoredRecord[] {
	const { random } = seeder;
	const newId = seeder.idSequence();
	const people = new Map(users.map((user) => [user, personOf(user)]));
	// properties are added one by one (not spread) to keep 100,000 records quick and lean
	return seeder.creationTimes(count).map((created, index) => {
		const hardware = random.pick(HARDWARE);
		const [platform, versions] = 'platform' in hardware ? [hardware.platform, hardware.os] : [];
		const status = weighted(seeder, STATUSES);
		const user = status === 'Deployed' && users.length ? random.pick(users) : undefined;
		const purchased = addDays(created, -random.int(0, 40));
		const [currency, rate] = random.pick(CURRENCY_RATES);
		const price = Math.round(random.int(hardware.price[0], hardware.price[1]) * rate * 100) / 100;
		const source = (platform && SOURCES[platform]) ?? 'ASSET';
		const tag = String(index + 1).padStart(6, '0');
		const givenName = user && (user.name as { givenName?: string } | undefined)?.givenName;
		const modified = seeder.modifiedAfter(created);
		const actor = SEED_ACTORS[source === 'JAMF' ? 0 : source === 'INTUNE' ? 1 : 2];
		const asset: StoredRecord = {
			id: newId(created),
			createdDtm: new Date(created).toISOString(),
			lastModifiedDtm: new Date(modified).toISOString(),
			createdBy: actor,
			lastModifiedBy: actor,
			externalId: `${source}-${tag}`,
			deviceName:
				hardware.type === 'Laptop' && givenName
					? `${givenName}'s ${random.pick(hardware.models)}`
					: `${hardware.type.slice(0, 3).toUpperCase()}-${random.code(7)}`,
			status,
			hardwareVendor: hardware.vendor,
			assetType: hardware.type,
			serialNumber: random.code(hardware.vendor === 'Apple' ? 12 : 10),
		};
		// chosen by position, not drawn: the data every other field has stays as it was
		if ('models' in hardware) asset.modelName = hardware.models[index % hardware.models.length];
		if (index % 5 !== 4) {
			const location = LOCATIONS[index % LOCATIONS.length];
			asset.locationName = location.name;
			asset.location = location;
		}
		if (random.chance(0.85)) asset.assetTag = `NW-${tag}`;
		asset.purchasedDate = dateOnly(purchased);
		if (status === 'Retired') {
			asset.disposalDate = dateOnly(addDays(purchased, random.int(700, 1400)));
		}
		asset.warrantyExpirationDate = dateOnly(addDays(purchased, random.chance(0.5) ? 365 : 3 * 365));
		asset.lifespanExpirationDate = dateOnly(addDays(purchased, 4 * 365));
		if (random.chance(0.12)) asset.notes = random.pick(ASSET_NOTES);
		if (user) asset.assignedToEmail = user.userName;
		asset.netPrice = price;
		asset.netPriceCurrency = currency;
		if (platform && versions) {
			asset.enrolledDtm = new Date(created + random.int(0, 3_600_000)).toISOString();
			if (status !== 'Retired' && random.chance(0.9)) {
				asset.lastSyncDtm = new Date(modified).toISOString();
			}
			asset.platform = platform;
			asset.osVersion = random.pick(versions);
			asset.isEncrypted = random.chance(0.9);
		}
		asset.statusType = statusTypeOf(status);
		if (user) asset.assignedTo = people.get(user);
		const custom = customValues(seeder, hardware, price, currency, purchased);
		// a few records carry the newer plain `customFields` map instead of typed values
		if (Object.keys(custom).length && index % 10 === 9) asset.customFields = plainValues(custom);
		else if (Object.keys(custom).length) asset.customFieldValues = custom;
		return asset;
	});
}

type Hardware = (typeof HARDWARE)[number];

function customValues(
	seeder: Seeder,
	hardware: Hardware,
	price: number,
	currency: string,
	purchased: number,
) {
	const { random } = seeder;
	const values: Record<string, Record<string, unknown>> = {};
	if ('memory' in hardware) values.memoryGb = { numberValue: random.pick(hardware.memory) };
	if (random.chance(0.7)) values.costCenter = { textValue: random.pick(COST_CENTERS) };
	if (random.chance(0.5)) {
		values.warrantyProvider = { optionValue: [random.pick(WARRANTY_PROVIDERS)] };
	}
	if (random.chance(0.3)) values.purchaseCost = { currencyValue: { value: price, currency } };
	if (random.chance(0.1)) {
		values.supportPortal = {
			linkValue: {
				href: `https://support.${hardware.vendor.toLowerCase()}.example/`,
				description: `${hardware.vendor} support`,
			},
		};
	}
	if (random.chance(0.3)) {
		values.lastAuditDate = {
			textValue: dateOnly(addDays(purchased, random.int(30, 600))).slice(0, 10),
		};
	}
	return values;
}

function plainValues(values: Record<string, Record<string, unknown>>): Record<string, unknown> {
	const plain: Record<string, unknown> = {};
	for (const [key, wrapped] of Object.entries(values)) {
		const inner = Object.values(wrapped)[0];
		plain[key] = key === 'supportPortal' ? (inner as { href: string }).href : inner;
	}
	return plain;
}
