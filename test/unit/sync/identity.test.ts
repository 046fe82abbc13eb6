import type { INode } from 'n8n-workflow';
import { closestKey } from '../../../nodes/shared/sync/columns';
import { describeItems, resolveRows, type RowIdentity } from '../../../nodes/shared/sync/identity';
import {
	cleanKey,
	DEFAULT_PLACEHOLDER_KEYS,
	placeholderTest,
} from '../../../nodes/shared/sync/keys';

const node = { name: 'Sync', type: 'stockroomAsset' } as INode;
const defaults = placeholderTest(node, DEFAULT_PLACEHOLDER_KEYS);
const serialWords = {
	keyField: 'serialNumber',
	keyLabel: 'Serial Number',
	noun: 'asset',
	nouns: 'assets',
};
const asset = (id: string, externalId: string, serialNumber?: string) => ({
	id,
	externalId,
	...(serialNumber === undefined ? {} : { serialNumber }),
});
const row = (item: number, key?: string, externalId?: string): RowIdentity => ({
	item,
	key,
	externalId,
});

describe('keys', () => {
	test('trimmed; blank is no key; numbers as text', () => {
		expect(cleanKey('  SN-1\t')).toBe('SN-1');
		expect(cleanKey('   ')).toBeUndefined();
		expect(cleanKey(null)).toBeUndefined();
		expect(cleanKey(352000000000000)).toBe('352000000000000');
		expect(cleanKey(Number.NaN)).toBeUndefined();
	});

	test('the default placeholders: BIOS fillers and the like, case aside; real serials are not', () => {
		for (const filler of [
			'To be filled by O.E.M.',
			'TO BE FILLED BY O.E.M.',
			'Default string',
			'System Serial Number',
			'Not Specified',
			'None',
			'N/A',
			'0',
			'00000000',
			'0123456789',
			'XXXXXXXXXX',
			'unknown',
		])
			expect([filler, defaults(filler)]).toEqual([filler, true]);
		for (const serial of ['C02XK0AAJGH5', '5CG1234XYZ', '0001', 'X1', 'NONE-1', 'PF3MDM0003'])
			expect([serial, defaults(serial)]).toEqual([serial, false]);
	});

	test('the option: values one per line or separated by commas; /.../ a regular expression', () => {
		const test = placeholderTest(node, 'Default string, N/A\n/^vm-[0-9a-f]+$/\n\n');
		expect(test('default STRING')).toBe(true);
		expect(test('n/a')).toBe(true);
		expect(test('VM-12ab')).toBe(true);
		expect(test('VM-12ab-x')).toBe(false);
		expect(placeholderTest(node, '')('Default string')).toBe(false);
		expect(() => placeholderTest(node, 'ok\n/[/')).toThrow(
			/^Placeholder Keys: the line "\/\[\/" is not a regular expression/,
		);
	});
});

describe('which record each row stands for', () => {
	const scope = [
		asset('a1', 'E-1', 'SN-1'),
		asset('a2', 'E-2', 'SN-2'),
		asset('a3', 'E-3'),
		asset('a4', 'E-4', 'Default string'),
	];
	const resolve = (rows: RowIdentity[], records = scope) =>
		resolveRows(rows, records, serialWords, defaults);

	test('by key, case aside; by External ID when the key is new (the key changes); new when neither', () => {
		const { targets, named, unidentified } = resolve([
			row(0, 'sn-1', 'e-1'),
			row(1, 'SN-2-NEW', 'E-2'),
			row(2, 'SN-3', 'E-3'),
			row(3, 'SN-9', 'E-9'),
			row(4, 'SN-10'),
		]);
		expect(targets.get(0)).toEqual({ kind: 'record', record: scope[0] });
		expect(targets.get(1)).toEqual({
			kind: 'record',
			record: scope[1],
			keyChange: { before: 'SN-2', after: 'SN-2-NEW' },
		});
		expect(targets.get(2)).toEqual({
			kind: 'record',
			record: scope[2],
			keyChange: { before: null, after: 'SN-3' },
		});
		expect(targets.get(3)).toEqual({ kind: 'new' });
		// no record has SN-10, and without an External ID the row may be one whose serial changed
		expect(targets.get(4)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) "SN-10" is on no asset in scope, and the row has no External ID: it can be neither created nor told apart from an asset whose Serial Number changed',
		});
		expect([...named].map((record) => record.id).sort()).toEqual(['a1', 'a2', 'a3']);
		expect(unidentified).toBe(1);
	});

	test('a key and an External ID that find two records: refused, both named', () => {
		const { targets, named } = resolve([row(0, 'SN-1', 'E-2')]);
		expect(targets.get(0)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) "SN-1" is the asset a1 in scope, whose External ID is "E-1", but this row\'s External ID is "E-2" (the asset a2): which asset the row means is not clear, so neither is changed. Correct the source',
		});
		expect([...named].map((record) => record.id).sort()).toEqual(['a1', 'a2']);
	});

	test('a key found, and an External ID no record in scope has: refused (is it a re-enrolled device?)', () => {
		const { targets } = resolve([row(0, 'SN-1', 'E-77')]);
		expect(targets.get(0)).toMatchObject({ kind: 'refused' });
	});

	test('no key, or a placeholder: refused; the External ID still names its record; only a row with neither holds removals back', () => {
		const { targets, named, unidentified } = resolve([
			{ item: 0, placeholder: 'To Be Filled By O.E.M.', externalId: 'E-1' },
			row(1, undefined, 'E-2'),
			row(2, undefined, 'E-99'),
			row(3),
		]);
		expect(targets.get(0)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) is "To Be Filled By O.E.M.", a placeholder (Placeholder Keys), not a key: the row cannot be matched to an asset; the asset with External ID "E-1" is kept as it is',
		});
		expect(targets.get(1)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) is empty: the row cannot be matched to an asset; the asset with External ID "E-2" is kept as it is',
		});
		expect(targets.get(2)).toEqual({
			kind: 'refused',
			message: 'Serial Number (serialNumber) is empty: the row cannot be matched to an asset',
		});
		expect(targets.get(3)?.kind).toBe('refused');
		expect([...named].map((record) => record.id).sort()).toEqual(['a1', 'a2']);
		expect(unidentified).toBe(1);
	});

	test('a record whose stored key is a placeholder is found by External ID only', () => {
		const { targets } = resolve([row(0, 'Default string', 'E-9'), row(1, 'SN-4', 'E-4')]);
		// (the caller turns a row's placeholder into `placeholder`: a key given is a key)
		expect(targets.get(0)).toEqual({ kind: 'new' });
		expect(targets.get(1)).toEqual({
			kind: 'record',
			record: scope[3],
			keyChange: { before: 'Default string', after: 'SN-4' },
		});
	});

	test('duplicates: a key or an External ID twice in the input, or twice in scope, or two rows finding one record', () => {
		const twice = resolve([row(0, 'SN-1'), row(1, 'sn-1 '.trim()), row(2, 'SN-7', 'E-2')]);
		expect(twice.targets.get(0)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) "SN-1" is in items 0 and 1 of the input (case and spaces aside): each key may appear once',
		});
		expect(twice.targets.get(2)?.kind).toBe('record');
		const ids = resolve([row(0, 'SN-5', 'E-5'), row(1, 'SN-6', 'e-5')]);
		expect(ids.targets.get(1)).toEqual({
			kind: 'refused',
			message:
				'External ID (externalId) "e-5" is in items 0 and 1 of the input (case and spaces aside): each may appear once',
		});
		const inScope = resolve([row(0, 'SN-1')], [...scope, asset('a5', 'E-5', 'sn-1')]);
		expect(inScope.targets.get(0)).toEqual({
			kind: 'refused',
			message:
				'Serial Number (serialNumber) "SN-1" belongs to 2 assets in scope (ids a1 and a5, case and spaces aside): each key may belong to one',
		});
		// row 1 finds a2 by its External ID (its serial is new); row 0 finds a2 by serial
		const oneRecord = resolve([row(0, 'SN-2'), row(1, 'SN-2-NEW', 'E-2')]);
		for (const item of [0, 1])
			expect(oneRecord.targets.get(item)).toEqual({
				kind: 'refused',
				message:
					'items 0 and 1 of the input all stand for the asset a2 (by Serial Number (serialNumber) or External ID): each asset may appear once',
			});
	});

	test('many rows on one key: each refusal names a few items and the count', () => {
		const rows = Array.from({ length: 50_000 }, (_, item) => row(item, 'Default'));
		const { targets } = resolve(rows);
		const message = (targets.get(49_999) as { message: string }).message;
		expect(message).toBe(
			'Serial Number (serialNumber) "Default" is in items 0, 1, 2 and 49,997 more of the input (case and spaces aside): each key may appear once',
		);
	});

	test('Match On External ID: the key is the External ID, nothing else identifies', () => {
		const words = { ...serialWords, keyField: 'externalId', keyLabel: 'External ID' };
		const { targets } = resolveRows([row(0, 'e-1'), row(1, 'E-5')], scope, words, defaults);
		expect(targets.get(0)).toEqual({ kind: 'record', record: scope[0] });
		expect(targets.get(1)).toEqual({ kind: 'new' });
	});
});

describe('messages', () => {
	test('a few items and a count', () => {
		expect(describeItems([7])).toBe('item 7');
		expect(describeItems([1, 2])).toBe('items 1 and 2');
		expect(describeItems([1, 2, 3])).toBe('items 1, 2 and 3');
		expect(describeItems([1, 2, 3, 4])).toBe('items 1, 2, 3 and 1 more');
	});

	test('the closest key of an export to a field: case, spaces and punctuation aside, then by spelling', () => {
		const keys = ['Device name', 'model_name', 'Serial number', 'OS version'];
		expect(closestKey(['modelName', 'Model Name'], keys)).toBe('model_name');
		expect(closestKey(['osVersion', 'OS Version'], keys)).toBe('OS version');
		expect(closestKey(['serialNumbr'], ['Serial number'])).toBe('Serial number');
		expect(closestKey(['assetTag', 'Asset Tag'], keys)).toBeUndefined();
	});
});
