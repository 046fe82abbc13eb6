import {
	COMPARISON_OPERATORS,
	type ComparisonOperator,
	type FilterNode,
	type Literal,
} from './ast';
import { FilterError } from './errors';
import { tokenize, type Token } from './lexer';
import { didYouMean } from '../schema/values';

/** Deeper nesting than this is refused rather than risking the stack. */
const MAX_DEPTH = 64;

const OPERATOR_LIST = `${COMPARISON_OPERATORS.join(', ')} or pr`;

function describeToken(token: Token): string {
	switch (token.type) {
		case 'end':
			return 'end of input';
		case 'string':
			return `the string ${token.text.length > 40 ? `${token.text.slice(0, 37)}..."` : token.text}`;
		case 'number':
			return `the number ${token.text}`;
		default:
			return `'${token.text}'`;
	}
}

const isKeyword = (token: Token, keyword: string) =>
	token.type === 'word' && token.text.toLowerCase() === keyword;

/**
 * Parses a filter expression. Precedence: parentheses, `not`, `and`, `or`; `and`/`or` are
 * left-associative. Keywords, operators and attribute names are case-insensitive.
 */
export function parseFilter(source: string): FilterNode {
	const tokens = tokenize(source);
	let index = 0;
	let depth = 0;

	const peek = () => tokens[index];
	const fail = (token: Token, expected: string): never => {
		throw new FilterError(
			token.position + 1,
			`expected ${expected}, found ${describeToken(token)}`,
		);
	};
	const enter = (token: Token) => {
		if (++depth > MAX_DEPTH) {
			throw new FilterError(
				token.position + 1,
				`expression nested more than ${MAX_DEPTH} levels deep`,
			);
		}
	};

	function parseOr(): FilterNode {
		let left = parseAnd();
		while (isKeyword(peek(), 'or')) {
			index++;
			left = { kind: 'or', left, right: parseAnd(), position: left.position };
		}
		return left;
	}

	function parseAnd(): FilterNode {
		let left = parseUnary();
		while (isKeyword(peek(), 'and')) {
			index++;
			left = { kind: 'and', left, right: parseUnary(), position: left.position };
		}
		return left;
	}

	function parseUnary(): FilterNode {
		const token = peek();
		if (isKeyword(token, 'not')) {
			index++;
			if (peek().type !== '(') fail(peek(), "'(' after 'not'");
			return { kind: 'not', operand: parseGroup(')'), position: token.position };
		}
		if (token.type === '(') return parseGroup(')');
		return parseAttributeExpression();
	}

	/** `( expression )` or, after an attribute, `[ expression ]`. */
	function parseGroup(close: ')' | ']'): FilterNode {
		const open = peek();
		enter(open);
		index++;
		const inner = parseOr();
		if (peek().type !== close) {
			fail(peek(), `'${close}' to close the '${open.text}' at column ${open.position + 1}`);
		}
		index++;
		depth--;
		return inner;
	}

	function parseAttributeExpression(): FilterNode {
		const attributeToken = peek();
		if (
			attributeToken.type !== 'word' ||
			isKeyword(attributeToken, 'and') ||
			isKeyword(attributeToken, 'or')
		) {
			return fail(attributeToken, 'an attribute name');
		}
		index++;
		const attribute = attributeToken.text;
		const position = attributeToken.position;
		const operatorToken = peek();
		if (operatorToken.type === '[') {
			return { kind: 'valuePath', attribute, filter: parseGroup(']'), position };
		}
		if (operatorToken.type !== 'word') {
			return fail(operatorToken, `an operator after '${attribute}' (${OPERATOR_LIST})`);
		}
		const operator = operatorToken.text.toLowerCase();
		index++;
		if (operator === 'pr') return { kind: 'present', attribute, position };
		if (!(COMPARISON_OPERATORS as readonly string[]).includes(operator)) {
			throw new FilterError(
				operatorToken.position + 1,
				`expected an operator after '${attribute}' (${OPERATOR_LIST}), found '${operatorToken.text}'${didYouMean(operator, [...COMPARISON_OPERATORS, 'pr'])}`,
			);
		}
		return {
			kind: 'compare',
			attribute,
			operator: operator as ComparisonOperator,
			value: parseValue(operator),
			position,
		};
	}

	function parseValue(operator: string): Literal {
		const token = peek();
		index++;
		if (token.type === 'string' || token.type === 'number') return token.value;
		if (token.type === 'word') {
			const word = token.text.toLowerCase();
			if (word === 'true') return true;
			if (word === 'false') return false;
			if (word === 'null') return null;
		}
		index--;
		return fail(
			token,
			`a value after '${operator}' (a "quoted string", a number, true, false or null)`,
		);
	}

	const tree = parseOr();
	if (peek().type !== 'end') {
		const token = peek();
		fail(
			token,
			token.type === ')' || token.type === ']'
				? `'and', 'or' or end of input (unbalanced '${token.text}')`
				: "'and', 'or' or end of input",
		);
	}
	return tree;
}
