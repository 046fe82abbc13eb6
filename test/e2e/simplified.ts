import type { IDataObject } from 'n8n-workflow';

/** What Simplify keeps of an asset (README, Asset node), written out here by hand. */
const ASSET_MAIN_FIELDS = [
	'id',
	'externalId',
	'deviceName',
	'status',
	'assetType',
	'hardwareVendor',
	'modelName',
	'serialNumber',
	'assetTag',
	'assignedToEmail',
	'platform',
	'osVersion',
	'lastSyncDtm',
	'locationName',
	'lastModifiedDtm',
];

/** An asset as Simplify gives it. */
export const assetMainFields = (record: IDataObject): IDataObject =>
	Object.fromEntries(
		ASSET_MAIN_FIELDS.filter((name) => record[name] !== undefined).map((name) => [
			name,
			record[name],
		]),
	);
