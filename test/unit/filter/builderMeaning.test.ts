import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { StockroomAsset } from '../../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../../nodes/StockroomContract/StockroomContract.node';
import { StockroomTrigger } from '../../../nodes/StockroomTrigger/StockroomTrigger.node';
import { StockroomUser } from '../../../nodes/StockroomUser/StockroomUser.node';
import { inspectFilter, printFilter } from '../../../nodes/shared/filter';
import { compileFilter } from '../../../nodes/shared/filter/evaluate';
import { readFilter } from '../../../nodes/shared/filterInput';
import { assetSchema } from '../../../nodes/shared/schema/asset';
import { contractSchema } from '../../../nodes/shared/schema/contract';
import { userSchema } from '../../../nodes/shared/schema/user';
import type { ResourceSchema } from '../../../nodes/shared/schema/fields';
import { allParameters } from '../../helpers/outcomes';

/**
 * What a builder row means, with expectations written by hand: a day on a date-time field is the
 * whole day in the workflow's time zone for every operator, and the two negative operators agree
 * on records with no value.
 */

/** The filter text a builder row becomes in a time zone. */
async function filterOf(row: IDataObject, timezone: string): Promise<string | undefined> {
	const parameters: IDataObject = {
		filterMode: 'manual',
		matchType: 'all',
		conditions: { condition: [row] },
	};
	const node = await readFilter(assetSchema, {
		getParameter: (name, fallback) => parameters[name] ?? fallback,
		timezone,
	});
	return node && printFilter(node);
}

const ROWS: Array<[string, string, string, string]> = [
	// time zone, the day as picked, its start in UTC, the next day's start in UTC
	['Asia/Tokyo', '2024-06-01', '2024-05-31T15:00:00Z', '2024-06-01T15:00:00Z'],
	['America/New_York', '2024-06-01T00:00:00', '2024-06-01T04:00:00Z', '2024-06-02T04:00:00Z'],
	// the day summer time starts in New York has 23 hours
	['America/New_York', '2024-03-10', '2024-03-10T05:00:00Z', '2024-03-11T04:00:00Z'],
	['UTC', '2024-06-01T00:00:00', '2024-06-01T00:00:00Z', '2024-06-02T00:00:00Z'],
];

describe('a day on a date-time field is the whole day in the workflow’s time zone', () => {
	test.each(ROWS)('%s, %s', async (timezone, day, start, end) => {
		const text = (operator: string) =>
			filterOf({ field: 'lastSyncDtm', operator, dateValue: day }, timezone);
		expect(await text('eq')).toBe(`lastSyncDtm ge "${start}" and lastSyncDtm lt "${end}"`);
		expect(await text('ne')).toBe(`not (lastSyncDtm ge "${start}" and lastSyncDtm lt "${end}")`);
		expect(await text('gt')).toBe(`lastSyncDtm ge "${end}"`);
		expect(await text('ge')).toBe(`lastSyncDtm ge "${start}"`);
		expect(await text('lt')).toBe(`lastSyncDtm lt "${start}"`);
		expect(await text('le')).toBe(`lastSyncDtm lt "${end}"`);
	});

	test('a time of day is that instant, read in the workflow’s time zone', async () => {
		expect(
			await filterOf(
				{ field: 'lastSyncDtm', operator: 'gt', dateValue: '2024-06-01T10:00:00' },
				'Asia/Tokyo',
			),
		).toBe('lastSyncDtm gt "2024-06-01T01:00:00Z"');
		expect(
			await filterOf(
				{ field: 'lastSyncDtm', operator: 'le', dateValue: '2024-06-01T00:00:00-04:00' },
				'Asia/Tokyo',
			),
		).toBe('lastSyncDtm le "2024-06-01T04:00:00Z"');
	});

	test('on a date field the day is the date itself', async () => {
		expect(
			await filterOf(
				{ field: 'purchasedDate', operator: 'le', dateValue: '2024-06-01' },
				'Asia/Tokyo',
			),
		).toBe('purchasedDate le "2024-06-01"');
	});

	test('the records each operator keeps, around midnight in Tokyo', async () => {
		// synced late on 1 June and early on 2 June, Tokyo time
		const records = [
			{ id: 'before', lastSyncDtm: '2024-05-31T14:59:59Z' }, // 31 May, 23:59:59
			{ id: 'first', lastSyncDtm: '2024-05-31T15:00:00Z' }, // 1 June, 00:00
			{ id: 'last', lastSyncDtm: '2024-06-01T14:59:59Z' }, // 1 June, 23:59:59
			{ id: 'after', lastSyncDtm: '2024-06-01T15:00:00Z' }, // 2 June, 00:00
			{ id: 'never' },
		];
		const kept = async (operator: string) => {
			const text = await filterOf(
				{ field: 'lastSyncDtm', operator, dateValue: '2024-06-01' },
				'Asia/Tokyo',
			);
			const predicate = compileFilter(inspectFilter(text!, assetSchema) as never, assetSchema);
			return records.filter((record) => predicate(record)).map((record) => record.id);
		};
		expect(await kept('eq')).toEqual(['first', 'last']);
		expect(await kept('ne')).toEqual(['before', 'after', 'never']);
		expect(await kept('gt')).toEqual(['after']);
		expect(await kept('ge')).toEqual(['first', 'last', 'after']);
		expect(await kept('lt')).toEqual(['before']);
		expect(await kept('le')).toEqual(['before', 'first', 'last']);
	});
});

describe('"is not equal to" and "does not contain" agree on records with no value', () => {
	test('both keep them, and print as not (...)', async () => {
		const ne = await filterOf({ field: 'status', operator: 'ne', statusValue: 'Retired' }, 'UTC');
		const notCo = await filterOf({ field: 'notes', operator: 'notCo', value: 'spare' }, 'UTC');
		expect(ne).toBe('not (status eq "Retired")');
		expect(notCo).toBe('not (notes co "spare")');
		const records = [
			{ id: 'retired', status: 'Retired', notes: 'a spare laptop' },
			{ id: 'deployed', status: 'Deployed', notes: 'in use' },
			{ id: 'blank' },
		];
		const kept = (text: string) => {
			const predicate = compileFilter(inspectFilter(text, assetSchema) as never, assetSchema);
			return records.filter((record) => predicate(record)).map((record) => record.id);
		};
		expect(kept(ne!)).toEqual(['deployed', 'blank']);
		expect(kept(notCo!)).toEqual(['deployed', 'blank']);
	});

	test('the operator lists say so', () => {
		const operators = allParameters(new StockroomAsset().description.properties)
			.filter((parameter) => parameter.name === 'operator')
			.flatMap((parameter) => parameter.options as Array<{ name: string; description?: string }>);
		const said = (name: string) =>
			new Set(
				operators.filter((option) => option.name === name).map((option) => option.description),
			);
		expect(said('Is Not Equal To')).toEqual(
			new Set(['Also matches records with no value (add Is Not Empty to leave them out)']),
		);
		expect(said('Does Not Contain')).toEqual(said('Is Not Equal To'));
	});
});

describe('the Expression notice’s example fits the node’s own resource', () => {
	const notices = (properties: INodeProperties[]) =>
		allParameters(properties)
			.filter((parameter) => parameter.name === 'filterNotice')
			.map((parameter) => ({
				example: /<code>([^<]*)<\/code>\s*$/.exec(parameter.displayName)?.[1] ?? '',
				shownFor: parameter.displayOptions?.show?.resource,
			}));

	test.each([
		['Asset', new StockroomAsset().description.properties, assetSchema],
		['Contract', new StockroomContract().description.properties, contractSchema],
		['User', new StockroomUser().description.properties, userSchema],
	] as Array<[string, INodeProperties[], ResourceSchema]>)(
		'%s: its example is a valid filter of its own resource',
		(_, properties, schema) => {
			const [notice] = notices(properties);
			expect(inspectFilter(notice.example.replace(/&quot;/g, '"'), schema)).not.toBeInstanceOf(
				Error,
			);
			expect(notice.example).toBe(schema.filterExample);
		},
	);

	test('the trigger shows an asset example for assets and a contract example for contracts', () => {
		const byResource = notices(new StockroomTrigger().description.properties).map(
			({ example, shownFor }) => [String(shownFor), example],
		);
		expect(byResource).toEqual([
			['assets', assetSchema.filterExample],
			['contracts', contractSchema.filterExample],
		]);
		expect(inspectFilter(contractSchema.filterExample, contractSchema)).not.toBeInstanceOf(Error);
		// what fits contracts is not an asset filter, and the other way round
		expect(inspectFilter(contractSchema.filterExample, assetSchema)).toBeInstanceOf(Error);
		expect(inspectFilter(assetSchema.filterExample, contractSchema)).toBeInstanceOf(Error);
	});
});
