import type { CustomFieldDefinition } from '../nodes/shared/schema/asset';
import { isPlainObject } from '../nodes/shared/schema/values';
import type { Clock } from './clock';
import type { Random } from './random';

/** An asset or contract as stored and returned: already in the wire form. */
export type StoredRecord = Record<string, unknown> & { id: string };

/** A SCIM user as stored and returned. */
export type ScimUser = Record<string, unknown> & { id: string; userName: string };

const ID = /^[0-9a-f]{24}$/;
export const isRecordId = (value: unknown): value is string =>
	typeof value === 'string' && ID.test(value);

const increment = (id: string): string => (BigInt(`0x${id}`) + 1n).toString(16).padStart(24, '0');

/**
 * A new id after `highest`: like a Mongo ObjectId, 8 hex digits of the creation second and 16
 * more, bumped past `highest` when needed so ids only grow and new records sort last.
 */
export function nextId(highest: string, at: Date, random: Random): string {
	const seconds = Math.max(0, Math.min(0xffffffff, Math.floor(at.getTime() / 1000)));
	const candidate = seconds.toString(16).padStart(8, '0') + random.hex(16);
	return candidate > highest ? candidate : increment(highest);
}

/** Index of the first of `records` (in id order) whose id sorts after `id`. */
export function indexAfterId(records: readonly StoredRecord[], id: string): number {
	let [low, high] = [0, records.length];
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (records[middle].id <= id) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** The records of one resource, kept in id order so a cursor is a binary search. */
export class RecordTable {
	private records: StoredRecord[] = [];
	private readonly byId = new Map<string, StoredRecord>();
	private readonly byExternalId = new Map<string, string>();
	/** Ids by External ID lower-cased, as the filter's `eq` compares text (case aside). */
	private readonly byFoldedExternalId = new Map<string, Set<string>>();
	private highest = '0'.repeat(24);

	constructor(
		readonly noun: string,
		private readonly clock: Clock,
		private readonly random: Random,
		private readonly changed: () => void,
	) {}

	get size(): number {
		return this.records.length;
	}

	/** Every record, in id order (do not mutate). */
	all(): readonly StoredRecord[] {
		return this.records;
	}

	get(id: string): StoredRecord | undefined {
		return this.byId.get(id);
	}

	findByExternalId(externalId: string): StoredRecord | undefined {
		const id = this.byExternalId.get(externalId);
		return id === undefined ? undefined : this.byId.get(id);
	}

	/** The records whose External ID equals `externalId` case aside, in id order. */
	withExternalIdCaseless(externalId: string): StoredRecord[] {
		const ids = this.byFoldedExternalId.get(externalId.toLowerCase());
		return ids ? [...ids].sort().map((id) => this.byId.get(id)!) : [];
	}

	/** Index of the first record whose id sorts after `id`. */
	indexAfter(id: string): number {
		return indexAfterId(this.records, id);
	}

	/** A fresh id for a record created at `at` (default: now). */
	newId(at: Date = this.clock.now()): string {
		this.highest = nextId(this.highest, at, this.random);
		return this.highest;
	}

	/**
	 * Inserts or replaces (by id) a record exactly as given; a record without an id gets a new one.
	 * Throws when another record already has its externalId.
	 */
	put(record: Record<string, unknown>): StoredRecord {
		const stored = {
			...record,
			id: isRecordId(record.id) ? record.id : this.newId(),
		} as StoredRecord;
		const externalId = typeof stored.externalId === 'string' ? stored.externalId : undefined;
		const owner = externalId === undefined ? undefined : this.byExternalId.get(externalId);
		if (owner !== undefined && owner !== stored.id) {
			throw new Error(`another ${this.noun} (${owner}) already has externalId '${externalId}'`);
		}
		const previous = this.byId.get(stored.id);
		if (previous) {
			this.unindex(previous);
			this.records[this.indexAfter(stored.id) - 1] = stored;
		} else if ((this.records.at(-1)?.id ?? '') < stored.id) {
			this.records.push(stored);
		} else {
			this.records.splice(this.indexAfter(stored.id), 0, stored);
		}
		if (stored.id > this.highest) this.highest = stored.id;
		this.byId.set(stored.id, stored);
		this.index(stored);
		this.changed();
		return stored;
	}

	delete(id: string): boolean {
		const record = this.byId.get(id);
		if (!record) return false;
		this.unindex(record);
		this.byId.delete(id);
		this.records.splice(this.indexAfter(id) - 1, 1);
		this.changed();
		return true;
	}

	/** Deletes every record `doomed` picks, in one pass (deletions by the thousand); returns their ids. */
	deleteWhere(doomed: (record: StoredRecord) => boolean): string[] {
		const deleted: string[] = [];
		this.records = this.records.filter((record) => {
			if (!doomed(record)) return true;
			this.unindex(record);
			this.byId.delete(record.id);
			deleted.push(record.id);
			return false;
		});
		this.changed();
		return deleted;
	}

	/** Replaces every record (seeding, loading, reset); ids are checked and sorted. */
	replaceAll(records: readonly Record<string, unknown>[]): void {
		this.records = [];
		this.byId.clear();
		this.byExternalId.clear();
		this.byFoldedExternalId.clear();
		records.forEach((record, index) => {
			if (!isRecordId(record.id)) {
				throw new Error(`${this.noun} #${index + 1} has no valid id (24 lowercase hex)`);
			}
		});
		const sorted = [...records].sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
		for (const record of sorted as StoredRecord[]) {
			if (this.byId.has(record.id)) throw new Error(`two ${this.noun}s have the id ${record.id}`);
			const externalId = record.externalId;
			if (typeof externalId === 'string' && this.byExternalId.has(externalId)) {
				throw new Error(`two ${this.noun}s have the externalId '${externalId}'`);
			}
			this.records.push(record);
			this.byId.set(record.id, record);
			this.index(record);
			if (record.id > this.highest) this.highest = record.id;
		}
		this.changed();
	}

	private index(record: StoredRecord): void {
		const { externalId } = record;
		if (typeof externalId !== 'string') return;
		this.byExternalId.set(externalId, record.id);
		const folded = externalId.toLowerCase();
		const ids = this.byFoldedExternalId.get(folded);
		if (ids) ids.add(record.id);
		else this.byFoldedExternalId.set(folded, new Set([record.id]));
	}

	private unindex(record: StoredRecord): void {
		const { externalId } = record;
		if (typeof externalId !== 'string') return;
		this.byExternalId.delete(externalId);
		const folded = externalId.toLowerCase();
		const ids = this.byFoldedExternalId.get(folded);
		ids?.delete(record.id);
		if (ids?.size === 0) this.byFoldedExternalId.delete(folded);
	}
}

/** SCIM users in a stable order, found by id or (case-insensitively) by e-mail. */
export class UserDirectory {
	private users: ScimUser[] = [];
	private readonly byId = new Map<string, ScimUser>();
	private readonly byEmail = new Map<string, ScimUser>();

	constructor(private readonly changed: () => void) {}

	all(): readonly ScimUser[] {
		return this.users;
	}

	get(id: string): ScimUser | undefined {
		return this.byId.get(id);
	}

	findByEmail(email: string): ScimUser | undefined {
		return this.byEmail.get(email.toLowerCase());
	}

	/** Inserts or replaces (by id) a user. */
	put(user: ScimUser): void {
		const previous = this.byId.get(user.id);
		if (previous) {
			for (const email of emailsOf(previous)) this.byEmail.delete(email.toLowerCase());
			this.users[this.users.indexOf(previous)] = user;
		} else {
			this.users.push(user);
		}
		this.byId.set(user.id, user);
		for (const email of emailsOf(user)) this.byEmail.set(email.toLowerCase(), user);
		this.changed();
	}

	replaceAll(users: readonly ScimUser[]): void {
		this.users = [];
		this.byId.clear();
		this.byEmail.clear();
		for (const [index, user] of users.entries()) {
			if (
				!isPlainObject(user) ||
				typeof user.id !== 'string' ||
				typeof user.userName !== 'string'
			) {
				throw new Error(`user #${index + 1} has no id or userName`);
			}
			this.users.push(user);
			this.byId.set(user.id, user);
			for (const email of emailsOf(user)) this.byEmail.set(email.toLowerCase(), user);
		}
		this.changed();
	}
}

function emailsOf(user: ScimUser): string[] {
	const emails = Array.isArray(user.emails) ? user.emails : [];
	const values = emails.flatMap((email) =>
		isPlainObject(email) && typeof email.value === 'string' ? [email.value] : [],
	);
	return [user.userName, ...values];
}

/** Everything the sandbox serves. */
export interface StoreContents {
	assets: readonly Record<string, unknown>[];
	contracts: readonly Record<string, unknown>[];
	users: readonly ScimUser[];
	customFieldDefinitions: readonly CustomFieldDefinition[];
}

export class Store {
	readonly assets: RecordTable;
	readonly contracts: RecordTable;
	readonly users: UserDirectory;
	customFieldDefinitions: CustomFieldDefinition[] = [];
	/** Called after every change (persistence listens here). */
	onChange: () => void = () => undefined;

	constructor(clock: Clock, random: Random) {
		const changed = () => this.onChange();
		this.assets = new RecordTable('asset', clock, random, changed);
		this.contracts = new RecordTable('contract', clock, random, changed);
		this.users = new UserDirectory(changed);
	}

	/** Replaces all contents; throws a message naming what is wrong. */
	load(contents: StoreContents): void {
		this.customFieldDefinitions = [...contents.customFieldDefinitions];
		this.users.replaceAll(contents.users);
		this.assets.replaceAll(contents.assets);
		this.contracts.replaceAll(contents.contracts);
	}

	snapshot(): StoreContents {
		return {
			assets: this.assets.all(),
			contracts: this.contracts.all(),
			users: this.users.all(),
			customFieldDefinitions: this.customFieldDefinitions,
		};
	}
}
