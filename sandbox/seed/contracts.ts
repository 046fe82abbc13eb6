import { CONTRACT_TYPES, PAYMENT_METHODS } from '../../nodes/shared/schema/contract';
import { withBaseAmount } from '../records/contract';
import type { ScimUser, StoredRecord } from '../store';
import { addDays, dateOnly, SEED_ACTORS, type Seeder } from './common';
import { CONTRACT_NOTES, VENDORS } from './words';

const DOCUMENTS_URL = 'https://contracts.northwind.example';

const CURRENCIES: ReadonlyArray<readonly [string | undefined, number]> = [
	[undefined, 1],
	['USD', 1],
	['EUR', 0.93],
	['GBP', 0.79],
];

/** `count` software contracts with line items (most with an externalId) and document links. */
export function seedContracts(
	seeder: Seeder,
	count: number,
	users: readonly ScimUser[],
): StoredRecord[] {
	const { random } = seeder;
	const newId = seeder.idSequence();
	return seeder.creationTimes(count).map((created, index) => {
		const vendor = random.pick(VENDORS);
		const year = new Date(created).getUTCFullYear();
		const externalId = `CTR-${year}-${String(index + 1).padStart(5, '0')}`;
		const agreed = addDays(created, -random.int(0, 20));
		const renewal = addDays(agreed, random.pick([365, 365, 730, 1095]));
		const modified = seeder.modifiedAfter(created);
		const [currency, rate] = random.pick(CURRENCIES);
		const lineItems = Array.from(
			{ length: random.int(1, Math.min(4, vendor.products.length + 2)) },
			(_, line) => {
				const [product, price] = vendor.products[line % vendor.products.length];
				const seats = random.chance(0.85) ? random.int(5, 500) : undefined;
				const item: Record<string, unknown> = {};
				if (random.chance(0.8)) item.externalId = `${externalId}-L${line + 1}`;
				item.description = line < vendor.products.length ? product : `${product} (add-on seats)`;
				if (random.chance(0.15)) item.notes = 'Billed annually in advance.';
				if (seats !== undefined) item.unitCount = seats;
				item.amount =
					Math.round(price * rate * (seats === undefined ? random.int(5, 50) : 1) * 100) / 100;
				if (currency) item.currency = currency;
				item.startDate = dateOnly(agreed);
				item.endDate = dateOnly(renewal);
				return withBaseAmount(item);
			},
		);
		const actor = SEED_ACTORS[2];
		const contract: StoredRecord = {
			id: newId(created),
			createdDtm: new Date(created).toISOString(),
			lastModifiedDtm: new Date(modified).toISOString(),
			createdBy: actor,
			lastModifiedBy: actor,
			externalId,
			ref: `PO-${year}-${String(random.int(1, 9999)).padStart(4, '0')}`,
			type: random.pick(CONTRACT_TYPES),
			vendorName: vendor.name,
			agreementDate: dateOnly(agreed),
		};
		if (random.chance(0.8)) contract.renewalDate = dateOnly(renewal);
		if (random.chance(0.7)) contract.terminationNoticeDays = random.pick([30, 60, 90]);
		// absent a fifth of the time: the service then treats it as false
		const autoRenewal = random.next();
		if (autoRenewal < 0.8) contract.isAutomaticRenewal = autoRenewal < 0.5;
		if (random.chance(0.2)) contract.notes = random.pick(CONTRACT_NOTES);
		if (random.chance(0.95)) contract.paymentMethod = random.pick(PAYMENT_METHODS);
		if (users.length && random.chance(0.8)) {
			contract.businessOwnerEmail = random.pick(users).userName;
		}
		contract.lineItems = lineItems;
		contract.documents = Array.from({ length: random.int(0, 2) }, (_, n) => ({
			linkUrl: `${DOCUMENTS_URL}/${externalId}/${n === 0 ? 'order-form' : 'terms'}.pdf`,
			description: n === 0 ? 'Signed order form' : 'Terms and conditions',
		}));
		return contract;
	});
}
