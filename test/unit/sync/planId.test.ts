import fc from 'fast-check';
import {
	canonical,
	fingerprint,
	planId,
	readPlanId,
	samePlan,
	SetDigest,
	type PlanBasis,
	type PlanEntry,
} from '../../../nodes/shared/sync/entries';

const basis: PlanBasis = { newest: 0, settings: 'aaaaaa', input: 'bbbbbb', register: 'cccccc' };

const update = (id: string, before: unknown, after: unknown, record = {}): PlanEntry => ({
	action: 'updated',
	item: 0,
	key: id,
	record: { id, ...record },
	patch: { deviceName: after as string },
	changes: { deviceName: { before, after } },
});

const refused = (item: number, row: object): PlanEntry => ({
	action: 'failed',
	item,
	key: 'K',
	error: new Error(`refused [item ${item}]`),
	row: fingerprint(row),
});

describe('plan ids', () => {
	test('the counts per action, a 64-bit digest and the basis; unchanged records are left out', () => {
		const id = planId(
			[
				update('a', 'x', 'y'),
				{ action: 'unchanged', item: 1, key: 'b', record: { id: 'b' } },
				{ action: 'deleted', key: 'c', record: { id: 'c' } },
			],
			{ ...basis, newest: Date.UTC(2026, 10, 28, 10, 15) },
		);
		expect(id).toMatch(/^p2-c0-u1-s0-r0-d1-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-oaaaaaa-ibbbbbb-gcccccc$/);
		const parts = readPlanId(id)!;
		expect(parts.counts).toEqual(
			new Map([
				['created', 0],
				['updated', 1],
				['restored', 0],
				['retired', 0],
				['deleted', 1],
				['missing', 0],
				['failed', 0],
			]),
		);
		expect(parts.basis).toEqual({
			newest: Date.UTC(2026, 10, 28, 10, 15),
			settings: 'aaaaaa',
			input: 'bbbbbb',
			register: 'cccccc',
		});
		expect(readPlanId('p2-something')).toBeUndefined();
		expect(readPlanId('p1-c0-u1-r0-d1-m0-f0-0123456789abcdef')).toBeUndefined();
		// an unchanged record more or less is the same plan
		expect(
			planId([update('a', 'x', 'y'), { action: 'deleted', key: 'c', record: { id: 'c' } }], {
				...basis,
				newest: Date.UTC(2026, 10, 28, 10, 15),
			}),
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
					const id = planId(plan, basis);
					expect(planId([...plan].reverse(), basis)).toBe(id);
					const changed = entries.map((e, index) =>
						index === pick % entries.length ? { ...e, after: `${String(e.after)}!` } : e,
					);
					expect(
						planId(
							changed.map((e) => update(e.id, e.before, e.after)),
							basis,
						),
					).not.toBe(id);
					const deleted = plan.map((e, index): PlanEntry =>
						index === pick % plan.length
							? { action: 'deleted', key: e.key, record: { id: e.key } }
							: e,
					);
					expect(planId(deleted, basis)).not.toBe(id);
				},
			),
		);
	});

	test('a record the plan writes or removes is covered as it was read: an edit of it is another plan', () => {
		const asRead = { deviceName: 'Device 5', lastModifiedDtm: '2026-11-28T09:00:00.000Z' };
		const deletion = (record: object): PlanEntry => ({
			action: 'deleted',
			key: 'SYNC-5',
			record: { id: '5', ...record },
		});
		const id = planId([deletion(asRead)], basis);
		expect(planId([deletion({ ...asRead, notes: 'DO NOT DELETE' })], basis)).not.toBe(id);
		expect(
			planId([deletion({ ...asRead, lastModifiedDtm: '2026-11-28T10:00:00.000Z' })], basis),
		).not.toBe(id);
		// an update covers its record whole too, not only the fields it changes
		const updated = planId([update('a', 'x', 'y', asRead)], basis);
		expect(
			planId([update('a', 'x', 'y', { ...asRead, assignedToEmail: 'bob@example.com' })], basis),
		).not.toBe(updated);
		// a record the plan leaves unchanged is not the plan's: its edits do not change the id
		const unchanged = (record: object): PlanEntry => ({
			action: 'unchanged',
			item: 3,
			key: 'b',
			record: { id: 'b', ...record },
		});
		expect(planId([deletion(asRead), unchanged({ notes: 'x' })], basis)).toBe(
			planId([deletion(asRead), unchanged({ notes: 'y' })], basis),
		);
	});

	test('a refused row counts by what it says, not by where it is', () => {
		const row = { key: 'K', values: { deviceName: 'A' }, item: 4 };
		const id = planId([refused(4, row)], basis);
		expect(planId([refused(9, { ...row, item: 9 })], basis)).toBe(id);
		expect(planId([refused(4, { ...row, values: { deviceName: 'B' } })], basis)).not.toBe(id);
		// a contract's lines are gathered from its rows in input order: their order is no change
		const lines = [
			{ key: 'L1', item: 1, path: 'lineItem' },
			{ key: 'L2', item: 2, path: 'lineItem' },
		];
		expect(fingerprint({ key: 'PO-1', lines })).toBe(
			fingerprint({ key: 'PO-1', lines: [...lines].reverse() }),
		);
	});

	test('the basis is no part of the plan: ids with other bases name the same plan', () => {
		const plan = [update('a', 'x', 'y')];
		const one = readPlanId(planId(plan, basis))!;
		const other = readPlanId(
			planId(plan, { newest: 99, settings: '111111', input: '222222', register: '333333' }),
		)!;
		expect(samePlan(one, other)).toBe(true);
		expect(samePlan(one, readPlanId(planId([update('a', 'x', 'z')], basis))!)).toBe(false);
	});

	test('a set digest is the same whatever the order, and counts each text', () => {
		const digest = (texts: string[]) => {
			const set = new SetDigest();
			for (const text of texts) set.add(text);
			return set.short();
		};
		expect(digest(['a', 'b', 'c'])).toBe(digest(['c', 'a', 'b']));
		expect(digest(['a', 'b'])).not.toBe(digest(['a', 'b', 'b']));
		expect(digest(['a', 'b'])).not.toBe(digest(['a', 'c']));
	});

	test('canonical text is JSON with keys sorted, escaped as JSON escapes', () => {
		// written by hand from JSON's rules (RFC 8259 §7, ECMA-262 JSON.stringify)
		expect(canonical({ b: 1, a: [true, null, undefined], c: { z: 'x', y: 1.5 } })).toBe(
			'{"a":[true,null,null],"b":1,"c":{"y":1.5,"z":"x"}}',
		);
		expect(canonical({ 'k"ey': 'Ann\'s "Mac"\n\t\\' })).toBe(
			'{"k\\"ey":"Ann\'s \\"Mac\\"\\n\\t\\\\"}',
		);
		// a control character, a lone surrogate; an emoji, U+2028 and é stay as they are
		expect(canonical(['\u0001', '\ud800', '😀', '\u2028', 'é'])).toBe(
			'["\\u0001","\\ud800","😀","\u2028","é"]',
		);
		// one character that needs an escape, each alone
		expect(canonical(['C:\\temp', 'say "hi"', 'a\u001fb', 'x\udfffy'])).toBe(
			'["C:\\\\temp","say \\"hi\\"","a\\u001fb","x\\udfffy"]',
		);
		expect(canonical(undefined)).toBe('null');
		expect(canonical(Number.NaN)).toBe('null');
		expect(canonical({})).toBe('{}');
		expect(canonical([])).toBe('[]');
	});

	test('a plan keeps its id from one version to the next (an approval made before an upgrade)', () => {
		// computed before canonical text was rebuilt for speed; a change here refuses approved plans
		const id = planId(
			[
				{
					action: 'updated',
					item: 0,
					key: 'SN-1',
					record: {
						id: 'a1',
						deviceName: 'Ann\'s "Mac"\n',
						lastModifiedDtm: '2026-11-28T10:15:00.000Z',
						tags: ['x', { b: 1, a: null }],
					},
					patch: { deviceName: 'Mac é 😀' },
					changes: { deviceName: { before: 'Ann\'s "Mac"\n', after: 'Mac é 😀' } },
				},
				{ action: 'deleted', key: 'SN-2', record: { id: 'a2', zeta: 1.5, alpha: true } },
				{
					action: 'created',
					item: 2,
					key: 'SN-3',
					body: { serialNumber: 'SN-3' },
					changes: { serialNumber: { before: null, after: 'SN-3' } },
				},
			],
			{ ...basis, newest: Date.UTC(2026, 10, 28, 10, 15) },
		);
		expect(id).toBe('p2-c1-u1-s0-r0-d1-m0-f0-ccdee2c777f8cfe1-tmx097mw0-oaaaaaa-ibbbbbb-gcccccc');
		const set = new SetDigest();
		for (const text of ['a', 'b\u2028', '{"x":1}']) set.add(text);
		expect(set.short()).toBe('08264a');
	});

	test('10,000 plans that differ in one value each: 10,000 ids', () => {
		const ids = new Set<string>();
		for (let n = 0; n < 10_000; n++)
			ids.add(planId([update('a', 'x', `y${n}`), update('b', n, 'z')], basis));
		expect(ids.size).toBe(10_000);
	});
});
