import type { INodeTypeDescription } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { StockroomUser } from '../../nodes/StockroomUser/StockroomUser.node';
import { allParameters } from '../helpers/outcomes';

const nodes: Array<[string, INodeTypeDescription]> = [
	['Asset', new StockroomAsset().description],
	['Contract', new StockroomContract().description],
	['User', new StockroomUser().description],
	['Trigger', new StockroomTrigger().description],
];

describe('the editor, the same on every node', () => {
	test.each(nodes)(
		'%s: the filter builder’s field column is “Field Name or ID”',
		(_, description) => {
			const columns = allParameters(description.properties).filter(
				(parameter) => parameter.name === 'field',
			);
			expect(columns.length).toBeGreaterThan(0);
			expect(new Set(columns.map((column) => column.displayName))).toEqual(
				new Set(['Field Name or ID']),
			);
		},
	);
});

describe('enum values are labelled once, in words', () => {
	test('Asset status: the same words in the form and in the filter builder', () => {
		const parameters = allParameters(new StockroomAsset().description.properties);
		const labels = (name: string) =>
			parameters
				.filter((parameter) => parameter.name === name && parameter.type === 'options')
				.map((parameter) =>
					(parameter.options as Array<{ name: string; value: string }>)
						.map((option) => `${option.name}=${option.value}`)
						.sort(),
				);
		const form = labels('status');
		const builder = labels('statusValue');
		expect(form.length).toBeGreaterThan(0);
		expect(builder.length).toBeGreaterThan(0);
		// written by hand from the service's status values
		const expected = [
			'Deployed=Deployed',
			'New=New',
			'Out For Repair=OutForRepair',
			'Ready To Deploy=ReadyToDeploy',
			'Retired=Retired',
		];
		for (const options of [...form, ...builder]) expect(options).toEqual(expected);
	});
});

describe('custom field types come from one table', () => {
	test('the Custom Fields form offers the types saved workflows use, each with its value inputs', () => {
		const parameters = allParameters(new StockroomAsset().description.properties);
		const type = parameters.find(
			(parameter) => parameter.name === 'type' && parameter.displayName === 'Type',
		)!;
		// written by hand: the values workflows saved before the table existed
		expect(
			(type.options as Array<{ name: string; value: string }>).map(
				(option) => `${option.name}=${option.value}`,
			),
		).toEqual([
			'Date=date',
			'Link=link',
			'Money Amount=money',
			'Number=number',
			'Options=options',
			'Text=text',
		]);
		const shownFor = (name: string) =>
			parameters.find((parameter) => parameter.name === name)?.displayOptions?.show?.type;
		expect(shownFor('textValue')).toEqual(['text']);
		expect(shownFor('amount')).toEqual(['money']);
		expect(shownFor('href')).toEqual(['link']);
	});
});
