import type { Person } from '../records/common';
import { Random } from '../random';
import { nextId } from '../store';

/** Seeded records end here, so the same seed gives the same data on any day. */
export const SEED_END = Date.UTC(2025, 5, 30, 17, 0, 0);
const DAY = 86_400_000;

const dates = new Map<number, string>();

/** `YYYY-MM-DDT00:00:00Z`; one shared string per day keeps 100,000 records smaller. */
export function dateOnly(ms: number): string {
	const day = Math.floor(ms / DAY);
	let text = dates.get(day);
	if (text === undefined) {
		text = `${new Date(day * DAY).toISOString().slice(0, 10)}T00:00:00Z`;
		dates.set(day, text);
	}
	return text;
}

export const addDays = (ms: number, days: number): number => ms + days * DAY;

/** Generation state shared by the seeders. */
export class Seeder {
	readonly random: Random;

	constructor(seed: number) {
		this.random = new Random(seed);
	}

	/** Ascending creation times spread over the three years before SEED_END. */
	creationTimes(count: number): number[] {
		const span = 3 * 365 * DAY;
		const step = span / Math.max(count, 1);
		const start = SEED_END - span;
		return Array.from({ length: count }, (_, i) =>
			Math.floor(start + i * step + this.random.next() * step * 0.9),
		);
	}

	/** An id source for one resource: ids grow with creation time. */
	idSequence(): (at: number) => string {
		let highest = '0'.repeat(24);
		return (at) => (highest = nextId(highest, new Date(at), this.random));
	}

	/** A modification time after `created`, no later than SEED_END. */
	modifiedAfter(created: number): number {
		return this.random.chance(0.4)
			? created
			: created + Math.floor(this.random.next() * (SEED_END - created));
	}
}

/** Integrations and admins that created the seeded records. */
export const SEED_ACTORS: readonly Person[] = [
	{
		userId: 'b1f0c2d3e4a5968778695a4b3c2d1e0f',
		name: 'Jamf Pro (integration)',
		email: 'jamf@integrations.northwind.example',
	},
	{
		userId: 'c2a1d3e4f5b6a7980a1b2c3d4e5f6071',
		name: 'Microsoft Intune (integration)',
		email: 'intune@integrations.northwind.example',
	},
	{
		userId: 'd3b2e4f5a6c7b8091a2b3c4d5e6f7081',
		name: 'IT Operations',
		email: 'it-ops@northwind.example',
	},
];
