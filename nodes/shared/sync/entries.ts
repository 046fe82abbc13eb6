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
	/**
	 * Owned values of lines the source has: over the line with that key, else a new line (over
	 * `moved`, the line as it was on the contract it moves from: its other fields go with it).
	 */
	set: Array<{ form: string; externalId: string; values: IDataObject; moved?: IDataObject }>;
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
			/** The fields (as the guard labels them) the write empties. */
			cleared?: string[];
	  } & FromItems &
			Returning)
	| ({ action: 'unchanged'; item: number; key: string; record: IDataObject } & FromItems &
			Returning)
	/** A record back in the source whose status was the Missing Records status: set back. */
	| ({
			action: 'restored';
			item: number;
			key: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
			cleared?: string[];
	  } & FromItems)
	| { action: 'missing'; key?: string; record: IDataObject; reason?: string }
	| {
			action: 'retired';
			key?: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
	  }
	| { action: 'deleted'; key?: string; record: IDataObject }
	/**
	 * `item` is absent for a record the source does not have (its write failed); `row` is what the
	 * row said, without its position, so that the plan id does not depend on the input's order.
	 */
	| {
			action: 'failed';
			item?: number;
			/** Every input item of the row (a contract's rows), when more than `item`. */
			items?: number[];
			key?: string;
			/** The row's name (a device's, a contract's vendor), when it gives one. */
			name?: string;
			record?: IDataObject;
			error: Error;
			row?: string;
	  };

/**
 * A record back in the source whose status is still the Missing Records status, left so
 * (Returning Records: Leave As It Is, or no status to restore): `returning` is that status.
 */
interface Returning {
	returning?: string;
}

export type Action = PlanEntry['action'];

/** Every action, in the order reports and summaries list them. */
export const ACTIONS: readonly Action[] = [
	'created',
	'updated',
	'restored',
	'retired',
	'deleted',
	'missing',
	'unchanged',
	'failed',
];

/** The actions that write. */
export const WRITES: readonly Action[] = ['created', 'updated', 'restored', 'retired', 'deleted'];

/** How a dry run names each action: what would happen. */
export const PLANNED: Record<Action, string> = {
	created: 'create',
	updated: 'update',
	restored: 'restore',
	retired: 'retire',
	deleted: 'delete',
	missing: 'missing',
	unchanged: 'unchanged',
	failed: 'failed',
};

/** Letters of the counts a plan id carries, per action, in the id's order. */
const COUNT_LETTERS: Partial<Record<Action, string>> = {
	created: 'c',
	updated: 'u',
	restored: 's',
	retired: 'r',
	deleted: 'd',
	missing: 'm',
	failed: 'f',
};

/** Whether JSON writes the text as is between quotes: no quote, backslash, control or surrogate. */
function unescaped(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
			return false;
	}
	return true;
}

/** A string as JSON writes it; most keys and values need no escape, and skip JSON's call. */
const quoted = (text: string): string => (unescaped(text) ? `"${text}"` : JSON.stringify(text));

/**
 * JSON with object keys sorted, so that equal values print the same. Plan ids are made of it, so
 * its text stays the same across versions (an approved plan is applied by the next version too).
 * Built by concatenation: the input's every row goes through it, and arrays of parts cost more.
 */
export function canonical(value: unknown): string {
	if (typeof value === 'string') return quoted(value);
	if (Array.isArray(value)) {
		let text = '[';
		for (let index = 0; index < value.length; index++)
			text += (index ? ',' : '') + canonical(value[index]);
		return `${text}]`;
	}
	if (isPlainObject(value)) {
		const keys = Object.keys(value).sort();
		let text = '{';
		for (let index = 0; index < keys.length; index++)
			text += `${index ? ',' : ''}${quoted(keys[index])}:${canonical(value[keys[index]])}`;
		return `${text}}`;
	}
	return JSON.stringify(value ?? null);
}

/** Where a row or line sits in the input: left out of what it says. */
const POSITIONAL = new Set(['item', 'items', 'errorItem', 'error', 'path']);

/**
 * What a source row says, as text, whatever its position: its place in the input is left out,
 * and lists of objects (a contract's lines, gathered from its rows in input order) are sorted.
 */
export function fingerprint(value: unknown): string {
	if (Array.isArray(value)) {
		const elements = value.map(fingerprint);
		return `[${(value.every(isPlainObject) ? elements.sort() : elements).join(',')}]`;
	}
	if (isPlainObject(value))
		return `{${Object.keys(value)
			.filter((key) => !POSITIONAL.has(key) && value[key] !== undefined)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${fingerprint(value[key])}`)
			.join(',')}}`;
	return JSON.stringify(value ?? null);
}

// a module's own binding: a global's lookup in every turn of a hash's loop costs more than the turn
const { imul } = Math;

const mix = (h: number) => {
	h = imul(h ^ (h >>> 16), 0x85ebca6b);
	h = imul(h ^ (h >>> 13), 0xc2b2ae35);
	return (h ^ (h >>> 16)) >>> 0;
};
const hex32 = (n: number) => n.toString(16).padStart(8, '0');

/** The digest's two lanes' starting values. */
const SEED_A = 0x811c9dc5;
const SEED_B = 0x01000193 ^ 0x5bd1e995;

/**
 * A 64-bit digest of text, two 32-bit FNV-1a lanes with different seeds and a final mix. It tells
 * plans apart; it is no signature (nodes import no crypto module, and none is needed: a plan id
 * guards against a plan that changed, not against someone forging one).
 */
class Digest {
	private a = SEED_A;
	private b = SEED_B;

	add(text: string): void {
		let { a, b } = this;
		for (let i = 0; i < text.length; i++) {
			const code = text.charCodeAt(i);
			a = imul(a ^ code, 0x01000193);
			b = imul(b ^ code, 0x01000193) ^ (b >>> 15);
		}
		// a separator, so that ["ab", "c"] and ["a", "bc"] differ
		this.a = imul(a ^ 0x1f, 0x01000193);
		this.b = imul(b ^ 0x1e, 0x01000193);
	}

	/** The two lanes' final mix; a set adds these up. */
	laneA(): number {
		return mix(this.a ^ this.b);
	}

	laneB(): number {
		return mix(this.b + imul(this.a, 31));
	}

	hex(): string {
		return hex32(this.laneA()) + hex32(this.laneB());
	}

	/** Back to the seeds, for the next text (a set digests 100,000 rows with one). */
	reset(): void {
		this.a = SEED_A;
		this.b = SEED_B;
	}
}

/**
 * A digest of many texts whatever their order (the lanes of each are added up), for the input's
 * rows and the scope's records: an order-free summary costs no sort.
 */
export class SetDigest {
	private a = 0;
	private b = 0;
	private count = 0;
	private readonly digest = new Digest();

	add(text: string): void {
		const { digest } = this;
		digest.reset();
		digest.add(text);
		this.a = (this.a + digest.laneA()) >>> 0;
		this.b = (this.b + digest.laneB()) >>> 0;
		this.count++;
	}

	/** Six hex digits: enough to tell which part of a plan's basis moved. */
	short(): string {
		return hex32(mix(this.a ^ mix(this.b + this.count))).slice(0, 6);
	}
}

/** Six hex digits of one text. */
export function shortDigest(text: string): string {
	const digest = new Digest();
	digest.add(text);
	return digest.hex().slice(0, 6);
}

/**
 * What a plan was made from, beside its entries, so that a refusal can say what moved since:
 * the newest modification time in the scope (records modified after it were edited since), and
 * short digests of the node's settings, the input as read and the scope as read.
 */
export interface PlanBasis {
	/** When the newest record in scope was last modified, in ms since 1970 (0: none says). */
	newest: number;
	settings: string;
	input: string;
	register: string;
}

/** The record an entry is about, as the plan id names it: its id, or for a new one its key. */
function identity(entry: PlanEntry): string {
	if ('record' in entry && entry.record?.id !== undefined) return `id:${String(entry.record.id)}`;
	return `key:${keyForm(entry.key ?? '')}`;
}

/** Entries that touch a record the service has: the approval covers it as the plan saw it. */
const TOUCHES = new Set<Action>(['updated', 'restored', 'retired', 'deleted']);

/**
 * A plan's id: its counts per action, a 64-bit digest of the plan, and its basis. The digest
 * covers every action with its record and field changes (before and after), each record the plan
 * writes or removes as it was read (so any edit of it since, its modification time among them,
 * gives another plan), and each refused row by what it says, never by where it is: the same plan
 * gives the same id whatever the order of the input. Unchanged records are left out (they are what
 * the plan does not touch), unless one is back in the source and left as it is.
 */
export function planId(entries: readonly PlanEntry[], basis: PlanBasis): string {
	const lines: string[] = [];
	const counts = new Map<Action, number>();
	for (const entry of entries) {
		counts.set(entry.action, (counts.get(entry.action) ?? 0) + 1);
		const returning = 'returning' in entry && entry.returning ? entry.returning : '';
		if (entry.action === 'unchanged' && !returning) continue;
		const parts = [
			entry.action,
			identity(entry),
			'changes' in entry ? canonical(entry.changes) : '',
			TOUCHES.has(entry.action) && 'record' in entry ? canonical(entry.record) : '',
			entry.action === 'failed' ? (entry.row ?? '') : '',
			returning,
		];
		lines.push(parts.join('|'));
	}
	lines.sort();
	const digest = new Digest();
	for (const line of lines) digest.add(line);
	const countsPart = (Object.keys(COUNT_LETTERS) as Action[])
		.map((action) => `${COUNT_LETTERS[action]}${counts.get(action) ?? 0}`)
		.join('-');
	return `p2-${countsPart}-${digest.hex()}-t${basis.newest.toString(36)}-o${basis.settings}-i${basis.input}-g${basis.register}`;
}

/** A plan id read back: its counts by action, its digest and its basis. */
export interface PlanIdParts {
	counts: Map<Action, number>;
	digest: string;
	basis: PlanBasis;
}

const PLAN_ID =
	/^p2-c(\d+)-u(\d+)-s(\d+)-r(\d+)-d(\d+)-m(\d+)-f(\d+)-([0-9a-f]{16})-t([0-9a-z]+)-o([0-9a-f]{6})-i([0-9a-f]{6})-g([0-9a-f]{6})$/;

/** A plan id's parts; undefined when the text is no plan id of this version. */
export function readPlanId(id: string): PlanIdParts | undefined {
	const match = PLAN_ID.exec(id.trim());
	if (!match) return undefined;
	const actions = Object.keys(COUNT_LETTERS) as Action[];
	return {
		counts: new Map(actions.map((action, index) => [action, Number(match[index + 1])])),
		digest: match[8],
		basis: {
			newest: parseInt(match[9], 36),
			settings: match[10],
			input: match[11],
			register: match[12],
		},
	};
}

/** Whether two plan ids name the same plan: the same writes, to records as they were read. */
export const samePlan = (a: PlanIdParts, b: PlanIdParts): boolean =>
	a.digest === b.digest && [...a.counts].every(([action, count]) => b.counts.get(action) === count);

/** A plan id of the version before this one (p1-…), which covered less. */
export const isEarlierPlanId = (id: string): boolean =>
	/^p1-c\d+-u\d+-r\d+-d\d+-m\d+-f\d+-[0-9a-f]{16}$/.test(id.trim());
