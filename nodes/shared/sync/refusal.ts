import { NodeOperationError, type INode } from 'n8n-workflow';

/**
 * Why a run wrote nothing, in one word a workflow can branch on (a dry run's `wouldBeRefusedBy`)
 * instead of matching message text. A real run's refusal is an error item of `error` and `message`
 * only (what n8n 1.x sends down the error output), its message starting "Nothing was written":
 * - `guard`: more removals, restorations or clears than the guard allows;
 * - `rows`: more failed rows than Max Failed Rows allows;
 * - `plan`: not the approved plan (Apply Only Plan);
 * - `columns`: a column the sync reads is on no item, or every item has one key;
 * - `empty`: an empty input against a scope that holds records;
 * - `scope`: a scope with no filter;
 * - `service`: the scope's list did not add up;
 * - `settings`: a parameter or option the run cannot use.
 */
export type RefusalKind =
	'guard' | 'rows' | 'plan' | 'columns' | 'empty' | 'scope' | 'service' | 'settings';

/** A run refused before its first write: a node error that says which refusal it is. */
export class SyncRefusal extends NodeOperationError {
	constructor(
		node: INode,
		readonly refused: RefusalKind,
		message: string,
		description: string,
	) {
		super(node, message, { description });
	}
}
