import fc from 'fast-check';
import { assetSchema } from '../../../nodes/shared/schema/asset';
import {
	buildFilter,
	COMPARISON_OPERATORS,
	FilterConditionError,
	FilterError,
	parseFilter,
	printFilter,
	type FilterCondition,
	type FilterNode,
	type Literal,
} from '../../../nodes/shared/filter';
import { withoutPositions } from './helpers';

const attributeName = fc
	.stringMatching(/^[A-Za-z_][A-Za-z0-9_$-]{0,8}$/)
	.filter(
		(name) => !['and', 'or', 'not', 'pr', 'true', 'false', 'null'].includes(name.toLowerCase()),
	);
const attribute = fc
	.array(attributeName, { minLength: 1, maxLength: 3 })
	.map((parts) => parts.join('.'));
const literal: fc.Arbitrary<Literal> = fc.oneof(
	fc.string({ unit: 'binary' }),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.integer(),
	fc.boolean(),
	fc.constant(null),
);

const { tree } = fc.letrec<{ tree: FilterNode }>((self) => ({
	tree: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		fc.record({
			kind: fc.constant('compare' as const),
			attribute,
			operator: fc.constantFrom(...COMPARISON_OPERATORS),
			value: literal,
			position: fc.constant(0),
		}),
		fc.record({ kind: fc.constant('present' as const), attribute, position: fc.constant(0) }),
		fc.record({
			kind: fc.constant('and' as const),
			left: self('tree'),
			right: self('tree'),
			position: fc.constant(0),
		}),
		fc.record({
			kind: fc.constant('or' as const),
			left: self('tree'),
			right: self('tree'),
			position: fc.constant(0),
		}),
		fc.record({
			kind: fc.constant('not' as const),
			operand: self('tree'),
			position: fc.constant(0),
		}),
		fc.record({
			kind: fc.constant('valuePath' as const),
			attribute,
			filter: self('tree'),
			position: fc.constant(0),
		}),
	),
}));

/** Re-spells canonical text the way people write it: other casing, spacing, extra parentheses. */
const respelled = fc
	.tuple(tree, fc.boolean(), fc.constantFrom(' ', '  ', '\t', '\n '))
	.map(([node, upper, space]) =>
		printFilter(node)
			.replace(
				/ (and|or|eq|ne|co|sw|ew|gt|ge|lt|le|pr) /g,
				(_, word: string) => `${space}${upper ? word.toUpperCase() : word}${space}`,
			)
			.replace(/not \(/g, upper ? 'NOT(' : 'not ('),
	);

const onlyFilterErrors = (text: string) => {
	try {
		parseFilter(text);
	} catch (error) {
		if (!(error instanceof FilterError)) throw error;
		expect(error.column).toBeGreaterThanOrEqual(1);
		expect(error.column).toBeLessThanOrEqual(text.length + 1);
	}
};

describe('filter properties', () => {
	test('parse(print(tree)) gives the tree back', () => {
		fc.assert(
			fc.property(tree, (node) => {
				expect(withoutPositions(parseFilter(printFilter(node)))).toEqual(withoutPositions(node));
			}),
			{ numRuns: 2000 },
		);
	});

	test('print(parse(text)) is a fixed point', () => {
		fc.assert(
			fc.property(respelled, (text) => {
				const once = printFilter(parseFilter(text));
				expect(printFilter(parseFilter(once))).toBe(once);
			}),
			{ numRuns: 1000 },
		);
	});

	test('a built comparison keeps any string value as one value', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.string({ unit: 'binary' }),
					fc.constantFrom('x" or status pr or "', '\\', '"', '\\") or (', 'é ü 中 😀'),
				),
				(value) => {
					fc.pre(value !== '');
					const node = buildFilter(
						{ match: 'all', conditions: [{ field: 'deviceName', operator: 'eq', value }] },
						assetSchema,
					);
					const parsed = parseFilter(printFilter(node!));
					expect(withoutPositions(parsed)).toEqual({
						kind: 'compare',
						attribute: 'deviceName',
						operator: 'eq',
						value,
					});
				},
			),
			{ numRuns: 2000 },
		);
	});

	test('a built filter has exactly the builder rows as its parse tree, whatever text the field and operator hold', () => {
		// what an expression or an AI agent might put in a row: names, operators and syntax fragments
		const fragment = fc.constantFrom(
			'deviceName',
			'status',
			'netPrice',
			'customFieldValues.memoryGb',
			'customFieldValues.',
			'lineItems',
			'eq',
			'EQ',
			'pr',
			'gt',
			' or ',
			' and ',
			'not ',
			'(',
			')',
			'[',
			']',
			'"',
			'.',
			' ',
			'1',
			'id',
		);
		const text = fc.oneof(
			fc.string({ unit: 'binary', maxLength: 20 }),
			fc.array(fragment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
		);
		const row = fc.record({
			field: text,
			operator: text,
			value: fc.oneof(fc.string(), fc.integer()),
		});
		const match = fc.constantFrom<'all' | 'any'>('all', 'any');
		fc.assert(
			fc.property(fc.array(row, { minLength: 1, maxLength: 3 }), match, (rows, how) => {
				let node: FilterNode | undefined;
				try {
					node = buildFilter({ match: how, conditions: rows as FilterCondition[] }, assetSchema);
				} catch (error) {
					// refused: a clear error naming the row, never anything else
					expect(error).toBeInstanceOf(FilterConditionError);
					expect((error as Error).message).toMatch(/^Filter condition [1-3] \(/);
					return;
				}
				// accepted: the printed text reads back as one clause per row, joined as asked
				const clauses: FilterNode[] = [];
				const flatten = (tree: FilterNode) => {
					if (tree.kind === (how === 'all' ? 'and' : 'or')) {
						flatten(tree.left);
						flatten(tree.right);
					} else clauses.push(tree);
				};
				flatten(parseFilter(printFilter(node!)));
				expect(clauses).toHaveLength(rows.length);
				clauses.forEach((clause, index) => {
					const { field, operator } = rows[index];
					if (clause.kind !== 'compare' && clause.kind !== 'present') {
						throw new Error(`row ${index + 1} became a ${clause.kind}`);
					}
					expect(clause.attribute.toLowerCase()).toBe(field.toLowerCase());
					expect(clause.kind === 'present' ? 'pr' : clause.operator).toBe(operator.toLowerCase());
				});
			}),
			{ numRuns: 3000 },
		);
	});

	test('random text never crashes the parser: it parses or throws a FilterError with a column', () => {
		const tokenSoup = fc
			.array(
				fc.constantFrom(
					'and',
					'or',
					'not',
					'(',
					')',
					'[',
					']',
					'"',
					'\\',
					'eq',
					'pr',
					' ',
					'.',
					'-',
					'1',
					'e',
					'x',
					'true',
					'null',
					'\\u00',
					'"a"',
				),
				{ maxLength: 40 },
			)
			.map((parts) => parts.join(''));
		fc.assert(fc.property(fc.string({ unit: 'binary' }), onlyFilterErrors), { numRuns: 3000 });
		fc.assert(fc.property(tokenSoup, onlyFilterErrors), { numRuns: 5000 });
	});

	test('parsing time grows linearly with the input, also for pathological inputs', () => {
		const families: Array<(n: number) => string> = [
			(n) => '('.repeat(n),
			(n) => `a eq "${'\\\\'.repeat(n)}`,
			(n) => `${'a.'.repeat(n)}`,
			(n) => `a eq ${'9'.repeat(n)}`,
			(n) => Array.from({ length: n }, (_, i) => `a${i} pr`).join(' and '),
			(n) => `a eq "${'x'.repeat(n)}`,
		];
		const bestOf = (text: string) => {
			let best = Infinity;
			for (let run = 0; run < 5; run++) {
				const start = process.hrtime.bigint();
				onlyFilterErrors(text);
				best = Math.min(best, Number(process.hrtime.bigint() - start));
			}
			return best;
		};
		for (const family of families) {
			bestOf(family(2000)); // warm up the JIT
			const small = bestOf(family(20000));
			const large = bestOf(family(160000));
			// 8 times the input: linear is about 8x, quadratic would be 64x
			expect(large / small).toBeLessThan(30);
		}
	});
});
