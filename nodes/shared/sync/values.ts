import { isPlainObject } from '../schema/values';

/** Values compared as the service stores them: key order aside, JSON-equal. */
export function sameValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	const canonical = (value: unknown): unknown =>
		Array.isArray(value)
			? value.map(canonical)
			: isPlainObject(value)
				? Object.fromEntries(
						Object.keys(value)
							.sort()
							.map((key) => [key, canonical(value[key])]),
					)
				: value;
	return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
