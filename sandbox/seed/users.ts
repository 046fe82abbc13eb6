import type { ScimUser } from '../store';
import { addDays, SEED_END, type Seeder } from './common';
import { COMPANY_DOMAIN, FIRST_NAMES, LAST_NAMES, LOCALES, TITLES } from './words';

const ascii = (name: string): string =>
	name
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^A-Za-z]/g, '')
		.toLowerCase();

/** SCIM users with distinct, realistic names and e-mail addresses. */
export function seedUsers(seeder: Seeder, count: number): ScimUser[] {
	const { random } = seeder;
	const taken = new Set<string>();
	const users: ScimUser[] = [];
	for (let i = 0; i < count; i++) {
		const givenName = random.pick(FIRST_NAMES);
		const familyName = random.pick(LAST_NAMES);
		const base = `${ascii(givenName)}.${ascii(familyName)}`;
		let local = base;
		for (let n = 2; taken.has(local); n++) local = `${base}${n}`;
		taken.add(local);
		const email = `${local}@${COMPANY_DOMAIN}`;
		const created = addDays(SEED_END, -random.int(30, 2000));
		const locale = random.pick(LOCALES);
		const admin = random.chance(0.08);
		users.push({
			schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
			id: random.hex(32),
			userName: email,
			name: { formatted: `${givenName} ${familyName}`, givenName, familyName },
			displayName: `${givenName} ${familyName}`,
			title: random.pick(TITLES),
			locale,
			preferredLanguage: locale,
			active: random.chance(0.93),
			emails: [{ value: email, type: 'work', primary: true }],
			roles: [
				admin
					? { value: 'admin', display: 'Administrator', primary: true }
					: { value: 'user', display: 'User', primary: true },
			],
			meta: {
				created: new Date(created).toISOString(),
				lastModified: new Date(
					created + Math.floor(random.next() * (SEED_END - created)),
				).toISOString(),
				resourceType: 'User',
			},
		});
	}
	return users;
}
