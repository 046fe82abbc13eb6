import { checkFilter, FilterError } from '../nodes/shared/filter';
import { compileFilter } from '../nodes/shared/filter/evaluate';
import type { ResourceSchema } from '../nodes/shared/schema/fields';

export type RecordPredicate = (record: Record<string, unknown>) => boolean;

/**
 * The `filter` parameter as a predicate (undefined when absent), or the reason it is refused.
 * All parsing and evaluation is the shared filter module's.
 */
export function compileQueryFilter(
	text: string | null,
	schema: ResourceSchema,
): { predicate?: RecordPredicate; error?: string } {
	if (text === null || text.trim() === '') return {};
	try {
		return { predicate: compileFilter(checkFilter(text, schema), schema) };
	} catch (error) {
		if (error instanceof FilterError) return { error: error.message };
		throw error;
	}
}
