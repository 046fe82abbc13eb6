import type { IDataObject } from 'n8n-workflow';
import { describeValue } from '../../shared/schema/values';
import { describeItems, type RowIdentity } from '../../shared/sync/identity';
import { keyForm } from '../../shared/sync/keys';
import { sameValue } from '../../shared/sync/values';
import { fieldName, type ContractOwnership, type SourceItem, type SourceLine } from './source';

/** One contract of the source: every item (row) that describes it, read as one. */
export interface ContractSource extends RowIdentity {
	/** The input items it comes from, in order (its rows, or its one item). */
	items: number[];
	values: IDataObject;
	createValues: IDataObject;
	/** Its line items; undefined when the source says nothing of them. */
	lines?: SourceLine[];
	/** Why the contract cannot be synced (a bad value, rows that disagree, line items unmatched). */
	error?: Error;
	/** The item the error is on. */
	errorItem?: number;
}

/**
 * Contracts from the items: each item is one (Input Shape: one item per contract), or rows with
 * the same External ID (trimmed, case aside) are one, their contract fields agreeing. A row
 * without a key stays alone: which contract it belongs to is unknown. Linear in the rows.
 */
export function groupContracts(
	read: readonly SourceItem[],
	own: ContractOwnership,
): ContractSource[] {
	const contracts: ContractSource[] = [];
	const byKey = new Map<string, ContractSource>();
	// which row gave each contract field its value, for a message naming the two rows
	const givenBy = new Map<ContractSource, Map<string, number>>();
	const join = (contract: ContractSource, row: SourceItem) => {
		contract.items.push(row.item);
		if (row.line) contract.lines?.push(row.line);
		if (contract.error) return;
		if (row.error) {
			contract.error = row.error;
			contract.errorItem = row.item;
			return;
		}
		const origin = givenBy.get(contract) ?? new Map<string, number>();
		givenBy.set(contract, origin);
		const disagreement =
			agree(contract.values, row.values, origin, row.item) ??
			agree(contract.createValues, row.createValues, origin, row.item);
		if (!disagreement) return;
		const [name, before, after] = disagreement;
		// a field no later row gave came from the contract's first row
		const first = origin.get(name) ?? contract.item;
		contract.error = new Error(
			`Items ${first} and ${row.item}, rows of the contract "${contract.key}", disagree on ${fieldName(name)}: ${describeValue(before)} and ${describeValue(after)}. A contract field must be the same on every row of its contract, so the contract is left as it is`,
		);
		contract.errorItem = row.item;
	};
	for (const item of read) {
		const form = own.shape === 'lineItemRows' && item.key !== undefined ? keyForm(item.key) : '';
		const known = form ? byKey.get(form) : undefined;
		if (known) {
			join(known, item);
			continue;
		}
		const contract: ContractSource = {
			item: item.item,
			key: item.key,
			placeholder: item.placeholder,
			items: [item.item],
			values: { ...item.values },
			createValues: { ...item.createValues },
			...(own.lineFields.length
				? { lines: own.shape === 'lineItemRows' ? (item.line ? [item.line] : []) : item.lines }
				: {}),
			...(item.error ? { error: item.error, errorItem: item.item } : {}),
		};
		if (form) byKey.set(form, contract);
		contracts.push(contract);
	}
	for (const contract of contracts) if (!contract.error) checkLines(contract, own);
	return contracts;
}

/**
 * Takes a row's contract field values into its contract's, where the contract has none yet
 * (noting the row in `origin`); gives the first that differs: [field, the contract's, the row's].
 */
function agree(
	values: IDataObject,
	given: IDataObject,
	origin: Map<string, number>,
	item: number,
): [string, unknown, unknown] | undefined {
	for (const [name, value] of Object.entries(given)) {
		if (!(name in values)) {
			values[name] = value;
			origin.set(name, item);
		} else if (!sameValue(values[name], value)) return [name, values[name], value];
	}
	return undefined;
}

/**
 * Line items are matched within their contract by External ID (trimmed, case aside): each may
 * appear once, and one without (blank or a placeholder) cannot be matched, unless the source owns
 * the whole list. Either refuses the contract, naming the items.
 */
function checkLines(contract: ContractSource, own: ContractOwnership): void {
	const lines = contract.lines ?? [];
	const where = (line: SourceLine) =>
		own.shape === 'lineItemRows' ? `item ${line.item}` : `${line.path} of item ${line.item}`;
	const column =
		own.shape === 'lineItemRows'
			? 'Line Item External ID (lineItem.externalId)'
			: 'Line Item External ID (lineItems[].externalId)';
	const unkeyed = own.wholeList ? undefined : lines.find((line) => line.key === undefined);
	if (unkeyed) {
		contract.error = new Error(
			`${column} is ${unkeyed.placeholder === undefined ? 'empty' : `"${unkeyed.placeholder}", a placeholder (Placeholder Keys),`} on ${where(unkeyed)}: a line item of the contract "${contract.key}" cannot be matched without one, so the contract is left as it is. If the source owns each contract's whole list of line items, turn on Source Owns the Whole Line Item List`,
		);
		contract.errorItem = unkeyed.item;
		return;
	}
	const byForm = new Map<string, SourceLine[]>();
	for (const line of lines) {
		if (line.key === undefined) continue;
		const twins = byForm.get(keyForm(line.key));
		if (twins) twins.push(line);
		else byForm.set(keyForm(line.key), [line]);
	}
	for (const twins of byForm.values()) {
		if (twins.length < 2) continue;
		const shown =
			own.shape === 'lineItemRows'
				? describeItems(
						twins.slice(0, 3).map((line) => line.item),
						undefined,
						twins.length,
					)
				: `${describeItems(
						twins.slice(0, 3).map((line) => line.path),
						['', ''],
						twins.length,
					).trim()} of item ${twins[0].item}`;
		contract.error = new Error(
			`${column} "${twins[0].key}" is on ${shown} of the contract "${contract.key}" (case and spaces aside): each line item may appear once in its contract, so the contract is left as it is`,
		);
		contract.errorItem = twins[1].item;
		return;
	}
}
