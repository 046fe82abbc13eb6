import fc from 'fast-check';
import { planId, planIdCounts, type PlanEntry } from '../../../nodes/shared/sync/entries';

const update = (id: string, before: unknown, after: unknown): PlanEntry => ({
	action: 'updated',
	item: 0,
	key: id,
	record: { id },
	patch: { deviceName: after as string },
	changes: { deviceName: { before, after } },
});

describe('plan ids', () => {
	test('the counts per action, then a 64-bit digest; unchanged records are left out', () => {
		const id = planId([
			update('a', 'x', 'y'),
			{ action: 'unchanged', item: 1, key: 'b', record: { id: 'b' } },
			{ action: 'deleted', key: 'c', record: { id: 'c' } },
		]);
		expect(id).toMatch(/^p1-c0-u1-r0-d1-m0-f0-[0-9a-f]{16}$/);
		expect(planIdCounts(id)).toEqual(
			new Map([
				['created', 0],
				['updated', 1],
				['retired', 0],
				['deleted', 1],
				['missing', 0],
				['failed', 0],
			]),
		);
		expect(planIdCounts('p1-something')).toBeUndefined();
		// an unchanged record more or less is the same plan
		expect(
			planId([update('a', 'x', 'y'), { action: 'deleted', key: 'c', record: { id: 'c' } }]),
		).toBe(id);
	});

	test('the same entries in any order give the same id; any other before, after, record or action another', () => {
		const entry = fc.record({
			id: fc.constantFrom('a', 'b', 'c', 'd'),
			before: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer()),
			after: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer()),
		});
		fc.assert(
			fc.property(
				fc.uniqueArray(entry, { selector: (e) => e.id, minLength: 1, maxLength: 4 }),
				fc.nat(3),
				(entries, pick) => {
					const plan = entries.map((e) => update(e.id, e.before, e.after));
					const id = planId(plan);
					expect(planId([...plan].reverse())).toBe(id);
					const changed = entries.map((e, index) =>
						index === pick % entries.length ? { ...e, after: `${String(e.after)}!` } : e,
					);
					expect(planId(changed.map((e) => update(e.id, e.before, e.after)))).not.toBe(id);
					const deleted = plan.map((e, index): PlanEntry =>
						index === pick % plan.length
							? { action: 'deleted', key: e.key, record: { id: e.key } }
							: e,
					);
					expect(planId(deleted)).not.toBe(id);
				},
			),
		);
	});

	test('10,000 plans that differ in one value each: 10,000 ids', () => {
		const ids = new Set<string>();
		for (let n = 0; n < 10_000; n++)
			ids.add(planId([update('a', 'x', `y${n}`), update('b', n, 'z')]));
		expect(ids.size).toBe(10_000);
	});
});
