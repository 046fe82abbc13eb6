import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { FilterConditionError } from './filter';
import { FilterInputError } from './filterInput';
import { runPooled } from './pool';
import type { FieldIssue } from './schema/validate';

/** Values one execution shares across items (e.g. custom field definitions, read once). */
export type ExecutionCache = Map<string, Promise<unknown>>;

/**
 * One operation of a node: `prepare` reads and validates an item's parameters (and may read
 * from the service), `execute` makes the call. Every item is prepared before anything is
 * written, so a bad item stops the node before any write (unless Continue On Fail is on).
 */
export interface Operation<Prepared = unknown> {
	description: INodeProperties[];
	prepare(this: IExecuteFunctions, itemIndex: number, cache: ExecutionCache): Promise<Prepared>;
	execute(
		this: IExecuteFunctions,
		prepared: Prepared,
		itemIndex: number,
		cache: ExecutionCache,
	): Promise<IDataObject[]>;
	/**
	 * Work done once for all prepared items before any is executed (records looked up in
	 * batches); gives the items it failed for, with the error. It may complete `prepared`.
	 */
	batch?(
		this: IExecuteFunctions,
		prepared: Map<number, Prepared>,
		cache: ExecutionCache,
	): Promise<Map<number, unknown>>;
	/** Items sent at once; writes are independent per item. Defaults to 1. */
	concurrency?: number;
	/** The operation changes records: a stopped run says which items it wrote. */
	writes?: boolean;
}

/** A field as the form names it, with the name the service knows it by: "Device Name (deviceName)". */
export function fieldName(issue: FieldIssue): string {
	return issue.label && issue.label !== issue.path ? `${issue.label} (${issue.path})` : issue.path;
}

/** Record problems found before sending, for one item. */
export class InvalidItemError extends Error {
	constructor(
		readonly noun: string,
		readonly issues: FieldIssue[],
	) {
		const [first] = issues;
		const name = fieldName(first);
		super(
			`Invalid ${noun}: ${name ? `${name} ` : ''}${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
		);
		this.name = 'InvalidItemError';
	}
}

/** Any error of one item as n8n shows it: a node error whose message names the item. */
export function toItemError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		// the message is what an error item and the run's error show: it names the item
		if (!/\[item \d+\]$/.test(error.message))
			error.message = `${error.message} [item ${itemIndex}]`;
		return error;
	}
	if (error instanceof InvalidItemError) {
		return new NodeOperationError(context.getNode(), `${error.message} [item ${itemIndex}]`, {
			itemIndex,
			description: error.issues
				.map((issue) => `${fieldName(issue) || 'record'}: ${issue.message}`)
				.join('\n'),
		});
	}
	if (error instanceof FilterInputError || error instanceof FilterConditionError) {
		const parameter = error instanceof FilterInputError ? error.parameter : 'Conditions';
		return new NodeOperationError(context.getNode(), `${error.message} [item ${itemIndex}]`, {
			itemIndex,
			description: `Correct the node's ${parameter} parameter.`,
		});
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/**
 * The item a failed input item becomes with Continue On Fail. With "Continue (using error
 * output)" n8n sends an item to the error output only when its JSON holds `error` and nothing but
 * `message` besides (n8n 1.x; 2.x also allows `details`); any other key sends it down the success
 * branch. So `error` says what failed and `message` gives the details (each field, what was
 * expected, what the service said).
 */
export function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) json.message = description;
	return { json, pairedItem: { item: itemIndex } };
}

/** Runs an operation over every input item, with validation first, Continue On Fail and pairing. */
export async function runItems(
	this: IExecuteFunctions,
	operation: Operation,
): Promise<INodeExecutionData[]> {
	const count = this.getInputData().length;
	const cache: ExecutionCache = new Map();
	const prepared = new Map<number, unknown>();
	const failures = new Map<number, Error>();
	const continueOnFail = this.continueOnFail();

	for (let i = 0; i < count; i++) {
		try {
			prepared.set(i, await operation.prepare.call(this, i, cache));
		} catch (error) {
			const itemError = toItemError(this, error, i);
			if (!continueOnFail) throw itemError;
			failures.set(i, itemError);
		}
	}

	if (operation.batch && prepared.size) {
		for (const [i, error] of await operation.batch.call(this, prepared, cache)) {
			const itemError = toItemError(this, error, i);
			if (!continueOnFail) throw itemError;
			failures.set(i, itemError);
			prepared.delete(i);
		}
	}

	const results = new Map<number, IDataObject[]>();
	const pending = [...prepared.keys()];
	let fatal: Error | undefined;
	// with On Error: Stop, no item starts once one has failed; those under way finish
	await runPooled(
		pending.length,
		operation.concurrency ?? 1,
		async (index) => {
			const i = pending[index];
			try {
				results.set(i, await operation.execute.call(this, prepared.get(i), i, cache));
			} catch (error) {
				const itemError = toItemError(this, error, i);
				if (continueOnFail) failures.set(i, itemError);
				else fatal ??= itemError;
			}
		},
		() => fatal !== undefined,
	);
	if (fatal) throw pending.length > 1 ? stoppedAfter(fatal, [...results.keys()], operation) : fatal;

	const output: INodeExecutionData[] = [];
	for (let i = 0; i < count; i++) {
		const failure = failures.get(i);
		if (failure) {
			output.push(errorItem(failure, i));
			continue;
		}
		for (const json of results.get(i) ?? []) output.push({ json, pairedItem: { item: i } });
	}
	return output;
}

/**
 * The error that stopped a run, saying which items were done before it (writes run several at a
 * time, so items after the failed one may have been written): nothing is reported as written
 * that the service did not confirm, and nothing written goes unmentioned.
 */
function stoppedAfter(error: Error, completed: number[], operation: Operation): Error {
	if (!operation.writes || !(error instanceof NodeApiError || error instanceof NodeOperationError))
		return error;
	const items = completed.sort((a, b) => a - b);
	const done = items.length
		? `Items done before the stop (the service confirmed them): ${describeItems(items)}.`
		: 'No item was done before the stop.';
	error.description = [error.description, done].filter(Boolean).join('\n');
	return error;
}

/** Item indexes as ranges: "0-3, 5, 8-9". */
function describeItems(items: number[]): string {
	const ranges: string[] = [];
	for (let start = 0; start < items.length;) {
		let end = start;
		while (end + 1 < items.length && items[end + 1] === items[end] + 1) end++;
		ranges.push(end > start ? `${items[start]}-${items[end]}` : String(items[start]));
		start = end + 1;
	}
	return ranges.join(', ');
}

/**
 * What an agent reads of a failed tool is one text: n8n 1.100+ gives it the message followed by the
 * description, n8n before 1.100 only the description ("Correct the node's Filter Expression
 * parameter." alone says nothing of what was wrong). A tool's error says everything in both.
 */
function forAgent(error: unknown): unknown {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	const { message, description } = error;
	const whole =
		description && !message.includes(description) ? `${message}. ${description}` : message;
	error.message = whole;
	error.description = whole;
	return error;
}

/**
 * An operation over the input as a whole (Sync: the items are one set), which pairs and reports
 * its own output items.
 */
export interface SetOperation {
	description: INodeProperties[];
	runAll(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
}

/** The node's `execute`: picks the operation module and runs it over the items. */
export function createRouter(operations: Record<string, Operation | SetOperation>) {
	return async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const name = this.getNodeParameter('operation', 0) as string;
		const operation = operations[name];
		if (!operation) {
			throw new NodeOperationError(this.getNode(), `The operation "${name}" is not supported`);
		}
		const run = async () =>
			'runAll' in operation
				? await operation.runAll.call(this)
				: await runItems.call(this, operation);
		if (!this.getNode().type.endsWith('Tool')) return [await run()];
		try {
			return [await run()];
		} catch (error) {
			throw forAgent(error);
		}
	};
}
