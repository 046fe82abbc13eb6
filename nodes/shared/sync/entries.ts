import type { IDataObject } from 'n8n-workflow';
import { isPlainObject } from '../schema/values';
import { keyForm } from './keys';

/** What Missing Records does with a record in scope that no row names. */
export type MissingRecords = 'keep' | 'setStatus' | 'delete';

export interface Change {
	before: unknown;
	after: unknown;
}

/**
 * What an update does to a record's line items (a contract's), matched within the record by
 * External ID in key form (trimmed, case aside). Written over the record as read just before the
 * write, so lines the plan does not name stay as they are then.
 */
export interface LineItemPatch {
	/** Owned values of lines the source has: over the line with that key, else a new line. */
	set: Array<{ form: string; externalId: string; values: IDataObject }>;
	/** Key forms of the lines the source no longer has that go. */
	remove: string[];
	/** Lines without External ID that replace the record's own (the source owns the whole list). */
	anonymous?: IDataObject[];
}

/**
 * The source items a record's entry comes from, when it is more than `item` (rows of one
 * contract), and why part of what the source says is not written, when it is not.
 */
interface FromItems {
	items?: number[];
	reason?: string;
}

/** What one source row or one record in scope becomes. */
export type PlanEntry =
	| ({
			action: 'created';
			item: number;
			key: string;
			body: IDataObject;
			changes: Record<string, Change>;
	  } & FromItems)
	| ({
			action: 'updated';
			item: number;
			key: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
			lineItems?: LineItemPatch;
	  } & FromItems)
	| ({ action: 'unchanged'; item: number; key: string; record: IDataObject } & FromItems)
	| { action: 'missing'; key?: string; record: IDataObject; reason?: string }
	| {
			action: 'retired';
			key?: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
	  }
	| { action: 'deleted'; key?: string; record: IDataObject }
	/** `item` is absent for a record the source does not have (its write failed). */
	| { action: 'failed'; item?: number; key?: string; record?: IDataObject; error: Error };

export type Action = PlanEntry['action'];

/** Every action, in the order reports and summaries list them. */
export const ACTIONS: readonly Action[] = [
	'created',
	'updated',
	'retired',
	'deleted',
	'missing',
	'unchanged',
	'failed',
];

/** How a dry run names each action: what would happen. */
export const PLANNED: Record<Action, string> = {
	created: 'create',
	updated: 'update',
	retired: 'retire',
	deleted: 'delete',
	missing: 'missing',
	unchanged: 'unchanged',
	failed: 'failed',
};

/** Letters of the counts a plan id carries, per action. */
const COUNT_LETTERS: Partial<Record<Action, string>> = {
	created: 'c',
	updated: 'u',
	retired: 'r',
	deleted: 'd',
	missing: 'm',
	failed: 'f',
};

/** JSON with object keys sorted, so that equal values print the same. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (isPlainObject(value))
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
			.join(',')}}`;
	return JSON.stringify(value ?? null);
}

/**
 * A 64-bit digest of text, two 32-bit FNV-1a lanes with different seeds and a final mix. It tells
 * plans apart; it is no signature (nodes import no crypto module, and none is needed: a plan id
 * guards against a plan that changed, not against someone forging one).
 */
class Digest {
	private a = 0x811c9dc5;
	private b = 0x01000193 ^ 0x5bd1e995;

	add(text: string): void {
		let { a, b } = this;
		for (let i = 0; i < text.length; i++) {
			const code = text.charCodeAt(i);
			a = Math.imul(a ^ code, 0x01000193);
			b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 15);
		}
		// a separator, so that ["ab", "c"] and ["a", "bc"] differ
		this.a = Math.imul(a ^ 0x1f, 0x01000193);
		this.b = Math.imul(b ^ 0x1e, 0x01000193);
	}

	hex(): string {
		const mix = (h: number) => {
			h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
			h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
			return (h ^ (h >>> 16)) >>> 0;
		};
		const [a, b] = [mix(this.a ^ this.b), mix(this.b + Math.imul(this.a, 31))];
		return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
	}
}

/** The record an entry is about, as the plan id names it: its id, or for a new one its key. */
function identity(entry: PlanEntry): string {
	if ('record' in entry && entry.record?.id !== undefined) return `id:${String(entry.record.id)}`;
	return `key:${keyForm(entry.key ?? '')}`;
}

/**
 * A plan's id: its counts per action and a digest of every action with its record and field
 * changes (before and after), in a canonical order. The same plan gives the same id, whatever the
 * order of the input; any change of the register or the input that changes what would be written,
 * kept or refused changes it. Unchanged records are left out: they are what the plan does not touch.
 */
export function planId(entries: readonly PlanEntry[]): string {
	const lines: string[] = [];
	const counts = new Map<Action, number>();
	for (const entry of entries) {
		counts.set(entry.action, (counts.get(entry.action) ?? 0) + 1);
		if (entry.action === 'unchanged') continue;
		const changes = 'changes' in entry ? canonical(entry.changes) : '';
		const failed = entry.action === 'failed' ? `item:${entry.item ?? ''}` : '';
		lines.push(`${entry.action}|${identity(entry)}|${changes}${failed}`);
	}
	lines.sort();
	const digest = new Digest();
	for (const line of lines) digest.add(line);
	const countsPart = (Object.keys(COUNT_LETTERS) as Action[])
		.map((action) => `${COUNT_LETTERS[action]}${counts.get(action) ?? 0}`)
		.join('-');
	return `p1-${countsPart}-${digest.hex()}`;
}

/** The counts a plan id carries, by action; undefined when the text is no plan id. */
export function planIdCounts(id: string): Map<Action, number> | undefined {
	const match = /^p1-c(\d+)-u(\d+)-r(\d+)-d(\d+)-m(\d+)-f(\d+)-[0-9a-f]{16}$/.exec(id.trim());
	if (!match) return undefined;
	const actions = Object.keys(COUNT_LETTERS) as Action[];
	return new Map(actions.map((action, index) => [action, Number(match[index + 1])]));
}
