import type { FilterNode } from '../../../nodes/shared/filter';

/** A tree without source positions, for comparing trees parsed from different texts. */
export function withoutPositions(node: FilterNode): unknown {
	switch (node.kind) {
		case 'and':
		case 'or':
			return {
				kind: node.kind,
				left: withoutPositions(node.left),
				right: withoutPositions(node.right),
			};
		case 'not':
			return { kind: 'not', operand: withoutPositions(node.operand) };
		case 'valuePath':
			return {
				kind: 'valuePath',
				attribute: node.attribute,
				filter: withoutPositions(node.filter),
			};
		case 'compare':
			return {
				kind: 'compare',
				attribute: node.attribute,
				operator: node.operator,
				value: node.value,
			};
		case 'present':
			return { kind: 'present', attribute: node.attribute };
	}
}
