import type { IDataObject } from 'n8n-workflow';
import { printFilter, type FilterNode, type Literal } from '../filter';
import { fingerprint, type PlanEntry } from './entries';
import { resolveAttribute } from '../filter/attributes';
import { compileFilter } from '../filter/evaluate';
import type { ResourceSchema } from '../schema/fields';

/**
 * Records a Sync writes must land in its scope, or the next run will not find them: a new device
 * created without the custom field its scope is on (`source eq "Jamf"`) is "outside the scope"
 * the next night, and its row refused for good. The scope's conditions joined by `and` are read
 * apart: each `eq` on a writable field or a custom field fixes a value every record in scope has,
 * which a new record gets unless its row gives another; and a record a run would create or change
 * is checked against the whole filter, which the node evaluates as the service would.
 */

/** A value the scope fixes: a field (by its API name) or a custom field (by its name). */
export type FixedValue =
	| { kind: 'field'; field: string; value: Exclude<Literal, null> }
	| { kind: 'custom'; name: string; value: Exclude<Literal, null> };

export interface ScopeRule {
	/** The values every record in scope has, from the scope's `eq` conditions. */
	fixed: FixedValue[];
	/**
	 * The first of the scope's conditions (those joined by `and`, printed) that a record, in the
	 * form the service stores and lists it, does not meet; undefined when it is in scope.
	 */
	unmet(record: IDataObject): string | undefined;
}

/** The scope's conditions joined by `and`, each on its own. */
function conjuncts(node: FilterNode): FilterNode[] {
	return node.kind === 'and' ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node];
}

/** Field types whose value a filter literal gives whole. */
const FIXABLE = new Set([
	'string',
	'email',
	'url',
	'enum',
	'currency',
	'number',
	'boolean',
	'date',
]);

/** The scope's rule (see above); a run without a scope filter (None) has every record in scope. */
export function scopeRule(filter: FilterNode | undefined, schema: ResourceSchema): ScopeRule {
	if (!filter) return { fixed: [], unmet: () => undefined };
	const parts = conjuncts(filter).map((condition) => ({
		printed: printFilter(condition),
		test: compileFilter(condition, schema),
	}));
	const fixed: FixedValue[] = [];
	for (const condition of conjuncts(filter)) {
		if (condition.kind !== 'compare' || condition.operator !== 'eq' || condition.value === null)
			continue;
		const resolved = resolveAttribute(schema.fields, condition.attribute);
		if (typeof resolved === 'string') continue;
		if (resolved.kind === 'custom') {
			fixed.push({ kind: 'custom', name: resolved.name, value: condition.value });
			continue;
		}
		const { field, keys } = resolved;
		if (keys.length !== 1 || field.readOnly || !FIXABLE.has(field.type)) continue;
		const value =
			field.type === 'enum' && typeof condition.value === 'string'
				? (field.values.find(
						(candidate) => candidate.toLowerCase() === String(condition.value).toLowerCase(),
					) ?? condition.value)
				: condition.value;
		fixed.push({ kind: 'field', field: keys[0], value });
	}
	return {
		fixed,
		unmet: (record) => parts.find((part) => !part.test(record))?.printed,
	};
}

/**
 * A new record's body with the values the scope fixes, where the row gives none (a custom field
 * through `wrapCustom`, which gives undefined when the service has no such field). Gives the
 * fields it set.
 */
export function fillFromScope(
	body: IDataObject,
	rule: ScopeRule,
	wrapCustom?: (name: string, value: unknown) => { key: string; value: IDataObject } | undefined,
): string[] {
	const set: string[] = [];
	for (const fixed of rule.fixed) {
		if (fixed.kind === 'field') {
			if (body[fixed.field] !== undefined && body[fixed.field] !== null) continue;
			body[fixed.field] = fixed.value;
			set.push(fixed.field);
			continue;
		}
		const wrapped = wrapCustom?.(fixed.name, fixed.value);
		if (!wrapped) continue;
		const values = (body.customFieldValues ?? {}) as IDataObject;
		if (values[wrapped.key] !== undefined && values[wrapped.key] !== null) continue;
		body.customFieldValues = { ...values, [wrapped.key]: wrapped.value };
		set.push(`customFieldValues.${wrapped.key}`);
	}
	return set;
}

/** A record with a patch over it, as the service stores it after a partial update (null clears). */
export function patched(record: IDataObject, patch: IDataObject): IDataObject {
	const result: IDataObject = { ...record };
	for (const [name, value] of Object.entries(patch)) {
		if (value === null) delete result[name];
		else if (name === 'customFieldValues' && typeof value === 'object' && !Array.isArray(value))
			result[name] = { ...((record[name] as IDataObject) ?? {}), ...(value as IDataObject) };
		else result[name] = value;
	}
	return result;
}

/** Why a record a row would create or change is refused: it would not land in the scope. */
export function outsideScope(
	what: string,
	condition: string,
	done: 'created' | 'changed',
	nouns: string,
): Error {
	return new Error(
		`${what} would be outside the scope once ${done}: it would not meet ${condition}, so the next run would not find it. Give the row a value that meets the scope (a field the scope fixes with eq is given to new ${nouns}), or widen the scope`,
	);
}

/**
 * New records that would not land in the scope are refused rows, naming the condition. Checked
 * after the lookup of keys outside the scope, whose refusal says more (the record is there).
 */
export function createsInScope(
	plan: PlanEntry[],
	rule: ScopeRule,
	[noun, nouns]: [string, string],
): PlanEntry[] {
	return plan.map((entry) => {
		if (entry.action !== 'created') return entry;
		const unmet = rule.unmet(entry.body);
		if (!unmet) return entry;
		return {
			action: 'failed',
			item: entry.item,
			...(entry.items ? { items: entry.items } : {}),
			key: entry.key,
			error: outsideScope(`The new ${noun} "${entry.key}"`, unmet, 'created', nouns),
			row: fingerprint(entry.changes),
		};
	});
}
