import type { StoreContents } from '../store';
import { CUSTOM_FIELD_DEFINITIONS, seedAssets } from './assets';
import { Seeder } from './common';
import { seedContracts } from './contracts';
import { seedUsers } from './users';

/** The default demo set. */
export const DEMO_ASSETS = 40;
const DEMO_CONTRACTS = 10;
/** At least this many users, else one per four assets. */
const MIN_USERS = 30;

/**
 * Realistic data, the same for the same seed: `records` assets, a fifth as many contracts, and
 * users (default: the demo set).
 */
export function seedContents(seed: number, records?: number): StoreContents {
	const seeder = new Seeder(seed);
	const assets = records ?? DEMO_ASSETS;
	const users = seedUsers(seeder, Math.max(MIN_USERS, Math.ceil(assets / 4)));
	return {
		customFieldDefinitions: [...CUSTOM_FIELD_DEFINITIONS],
		users,
		assets: seedAssets(seeder, assets, users),
		contracts: seedContracts(
			seeder,
			records === undefined ? DEMO_CONTRACTS : Math.round(records / 5),
			users,
		),
	};
}
