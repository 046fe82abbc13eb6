import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';
import { compare, printFilter } from '../shared/filter';
import { paginate, type ListPage } from '../shared/transport';
import {
	ByteReader,
	ByteWriter,
	fingerprintOf,
	fromBase64,
	toBase64,
	unzigzag,
	zigzag,
	type MemoryKey,
	type RecordMemory,
} from './memory';
import { refusesLink, type WalkSettings } from './walk';

/**
 * Forgetting deleted records. No list says what was deleted, so a sweep lists the whole scope in
 * id order (`id gt` the last id read, never a resume link that could expire), a few pages per
 * poll, and at its end forgets the remembered records it did not see.
 *
 * The memory knows fingerprints, not ids, and a million of them cannot be marked as seen without
 * rewriting every bucket. So the sweep keeps a tally instead (an invertible Bloom lookup table of
 * a few hundred cells, whatever the fleet's size): every key the memory held when the sweep began
 * counts +1, every remembered record a page shows counts -1, and a key the poll's own walk learns
 * or drops ahead of the sweep is counted so that it nets to zero. At the end only the keys of
 * records the sweep never saw are left: the tally says exactly how many, and gives them back.
 *
 * A record the sweep did not see does harm only if it still exists: forgotten, its next edit is
 * emitted as a change. So a sweep believes its reads only when they agree with each other and with
 * the memory:
 * - it ends on an empty answer to what follows a page without `next` (asked once more, so a page
 *   that lost its `next` on the way is not taken for the end); an empty page with `next` is read on;
 * - ids that do not ascend past the cursor, or an empty answer where the page before announced
 *   more (a list cut short), abandon it: it forgets nothing, and says so in n8n's log;
 * - it forgets at most what its tally was sized for, and no more than a quarter of the memory at
 *   once. More missing records (a mass deletion, or reads cut short some other way) are forgotten
 *   by the sweeps that follow it at once, each counting a share of the memory sized so that its
 *   tally reads back, and forgetting its share only when no more are missing than planned: any
 *   number of deletions is forgotten within a bounded number of sweeps (see `planShares`).
 */
export interface SweepState {
	/** When the latest sweep began (service clock, ISO); none yet: counted from activation. */
	began: string;
	/** While a sweep runs: the last id it read ('' before its first page). */
	after?: string;
	/** While a sweep runs: the packed tally (see the file comment). */
	tally?: string;
	/** While a sweep runs: the `next` link of an empty page, read instead of `id gt after`. */
	link?: string;
	/** While a sweep runs: its last page had no `next`, so an empty answer after it is the end. */
	ending?: true;
	/** The share of the memory the running sweep counts; between sweeps, the one that follows at once. */
	share?: SweepShare;
}

/** A share of the memory: the keys whose fingerprint leaves `index` when divided by `of`. */
export interface SweepShare {
	index: number;
	of: number;
	/** How many of its records were missing when it was planned (its sweep forgets about as many). */
	expected: number;
}

/** A sweep begins this long after the previous one began: a deletion is forgotten within a day. */
export const SWEEP_EVERY_MS = 12 * 3_600_000;
/** The most list requests a poll spends on the sweep. */
export const SWEEP_PAGES_PER_POLL = 4;
const HASHES = 3;
/**
 * Tally cells per key it must give back. With 3 hashes a tally reads back whole above 1.23 cells
 * per key; at 1.5, about 1 in 40 tallies of 160 keys in 240 cells does not (two keys in the same
 * three cells), all of 2,000 and more do.
 */
const CELLS_PER_KEY = 1.5;
/** A regular sweep's tally (about 5 KB): it forgets up to 160 missing records. */
const DEFAULT_CELLS = 240;
/** A tally never grows past this (about 460 KB, 16,384 keys): a larger loss is split into more shares. */
const MAX_CELLS = 3 * 8192;
/** A share's sweep forgets this many missing records at most: its plan, and room for deletions since. */
const allowanceFor = (expected: number) => Math.ceil(expected * 1.1) + 16;
/** The most missing records a share is planned for: its allowance fits the largest tally. */
export const MAX_SHARE = Math.floor((MAX_CELLS / CELLS_PER_KEY - 16) / 1.1);
const cellsFor = (keys: number) =>
	Math.min(MAX_CELLS, Math.max(DEFAULT_CELLS, HASHES * Math.ceil((keys * CELLS_PER_KEY) / HASHES)));

/**
 * The shares that follow a sweep that missed `missing` of `remembered` records: each planned for
 * no more than a quarter of the memory, nor more than the largest tally gives back. So D
 * deletions are forgotten within 1 + max(4, ceil(D / MAX_SHARE)) sweeps, the first at its time
 * and the others one after another (more when records keep being deleted meanwhile).
 */
export function planShares(missing: number, remembered: number): SweepShare {
	const perShare = Math.max(1, Math.min(MAX_SHARE, Math.ceil(remembered / 4)));
	const of = Math.max(1, Math.ceil(missing / perShare));
	return { index: 0, of, expected: Math.ceil(missing / of) };
}

const TWO_32 = 2 ** 32;

/** 32 bits mixed from two (murmur3's finalizer after a multiply-add). */
function mix(a: number, b: number, seed: number): number {
	let h = Math.imul(a ^ seed, 0x9e3779b1) ^ Math.imul(b + seed, 0x85ebca77);
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	return (h ^ (h >>> 16)) >>> 0;
}

/** An invertible Bloom lookup table of memory keys, with counts. */
export class Tally {
	private readonly counts: number[];
	private readonly highs: number[];
	private readonly lows: number[];
	private readonly checks: number[];

	constructor(readonly cells: number) {
		this.counts = new Array<number>(cells).fill(0);
		this.highs = new Array<number>(cells).fill(0);
		this.lows = new Array<number>(cells).fill(0);
		this.checks = new Array<number>(cells).fill(0);
	}

	static unpack(text: string): Tally {
		const reader = new ByteReader(fromBase64(text));
		const tally = new Tally(reader.varint());
		for (let cell = 0; cell < tally.cells; cell++) {
			tally.counts[cell] = unzigzag(reader.varint());
			tally.highs[cell] = reader.varint();
			tally.lows[cell] = reader.varint();
			tally.checks[cell] = reader.varint();
		}
		return tally;
	}

	pack(): string {
		const writer = new ByteWriter();
		writer.varint(this.cells);
		for (let cell = 0; cell < this.cells; cell++) {
			writer.varint(zigzag(this.counts[cell]));
			writer.varint(this.highs[cell]);
			writer.varint(this.lows[cell]);
			writer.varint(this.checks[cell]);
		}
		return toBase64(writer.result());
	}

	/** Counts `key` once more (+1) or once less (-1). */
	add({ bucket, fingerprint }: MemoryKey, sign: 1 | -1): void {
		this.toggle(bucket * 256 + Math.floor(fingerprint / TWO_32), fingerprint % TWO_32, sign);
	}

	private toggle(high: number, low: number, sign: number): void {
		const check = mix(high, low, 0x5eed);
		const third = this.cells / HASHES;
		for (let hash = 0; hash < HASHES; hash++) {
			const cell = hash * third + (mix(high, low, hash + 1) % third);
			this.counts[cell] += sign;
			this.highs[cell] ^= high;
			this.lows[cell] = (this.lows[cell] ^ low) >>> 0;
			this.checks[cell] = (this.checks[cell] ^ check) >>> 0;
		}
	}

	/** How many keys were counted in more than out: exact, even when they cannot be given back. */
	net(): number {
		return this.counts.reduce((sum, count) => sum + count, 0) / HASHES;
	}

	/**
	 * The keys counted +1 more than -1 (in the memory at the start, never seen); undefined when the
	 * tally cannot be read back whole (too many keys left for its size).
	 */
	unseen(): MemoryKey[] | undefined {
		const copy = new Tally(this.cells);
		for (let cell = 0; cell < this.cells; cell++) {
			copy.counts[cell] = this.counts[cell];
			copy.highs[cell] = this.highs[cell];
			copy.lows[cell] = this.lows[cell];
			copy.checks[cell] = this.checks[cell];
		}
		return copy.peel();
	}

	/** `unseen`, taking the keys out of this tally as it finds them. */
	private peel(): MemoryKey[] | undefined {
		const unseen: MemoryKey[] = [];
		const pure = (cell: number) =>
			(this.counts[cell] === 1 || this.counts[cell] === -1) &&
			this.checks[cell] === mix(this.highs[cell], this.lows[cell], 0x5eed);
		let progress = true;
		while (progress) {
			progress = false;
			for (let cell = 0; cell < this.cells; cell++) {
				if (!pure(cell)) continue;
				const [sign, high, low] = [this.counts[cell], this.highs[cell], this.lows[cell]];
				if (sign === 1)
					unseen.push({ bucket: Math.floor(high / 256), fingerprint: (high % 256) * TWO_32 + low });
				this.toggle(high, low, -sign);
				progress = true;
			}
		}
		const whole = this.counts.every(
			(count, cell) =>
				count === 0 && this.highs[cell] === 0 && this.lows[cell] === 0 && this.checks[cell] === 0,
		);
		return whole ? unseen : undefined;
	}
}

/**
 * The sweep during one poll: `account` keeps the tally true while the poll's walk changes the
 * memory; `step` begins a sweep when one is due and reads its next pages.
 */
export class Sweep {
	private tally: Tally | undefined;
	private state: SweepState;
	/** Whether this poll changed the sweep (else its state is stored as it was, byte for byte). */
	changed = false;

	/** `stored`: the state's sweep; a state saved before sweeps counts from `activatedAt`. */
	constructor(
		private readonly stored: SweepState | undefined,
		activatedAt: string,
		private readonly memory: RecordMemory,
	) {
		this.state = stored ?? { began: activatedAt };
		this.tally = stored?.tally !== undefined ? Tally.unpack(stored.tally) : undefined;
	}

	/** Whether the sweep counts `key`: every key, or those of its share. */
	private counts(key: MemoryKey): boolean {
		const share = this.state.share;
		return !share || key.fingerprint % share.of === share.index;
	}

	/**
	 * The walk is about to remember `id` (learned: it was unknown) or drop it. Ahead of the sweep,
	 * a learned key counts +1 (the sweep will see it, or it was deleted) and a dropped one -1 (the
	 * sweep will not find it remembered): both net to zero. Behind it, neither counts: the sweep
	 * has passed the record, and counted it out if it was remembered then.
	 */
	account(id: string, change: 'learned' | 'dropped'): void {
		if (!this.tally || id <= this.state.after!) return;
		const key = fingerprintOf(id);
		if (!this.counts(key)) return;
		this.tally.add(key, change === 'learned' ? 1 : -1);
		this.changed = true;
	}

	/** Whether a sweep runs, follows at once (a share of a larger loss), or is due at `now` (service clock, ms). */
	due(now: number): boolean {
		return (
			this.tally !== undefined ||
			this.state.share !== undefined ||
			now - Date.parse(this.state.began) >= SWEEP_EVERY_MS
		);
	}

	/**
	 * Begins a sweep if none runs, then reads a page of it and up to SWEEP_PAGES_PER_POLL within
	 * the budget; at its end, forgets what it did not see. A page that fails is read next time.
	 */
	async step(
		context: IPollFunctions,
		path: string,
		settings: WalkSettings,
		now: number,
	): Promise<void> {
		this.changed = true;
		if (!this.tally) this.begin(now);
		try {
			// one page whatever is left of the budget (the walk before it was whole), more within it
			for (let pages = 0; pages < SWEEP_PAGES_PER_POLL; pages++) {
				if (pages > 0 && !settings.withinBudget()) break;
				if (!this.read(context, await this.nextPage(context, path, settings))) return;
			}
		} catch (error) {
			const { link, ...rest } = this.state;
			// a link the service refuses (expired): the sweep reads on from its last id instead
			if (link !== undefined && refusesLink(error)) this.state = rest;
			context.logger.warn(
				`Stockroom Trigger: the sweep for deleted records continues at the next poll: ${(error as Error).message}`,
			);
		}
	}

	private begin(now: number): void {
		const { share } = this.state;
		const tally = new Tally(share ? cellsFor(allowanceFor(share.expected)) : DEFAULT_CELLS);
		this.memory.forEachKey((key) => {
			if (this.counts(key)) tally.add(key, 1);
		});
		this.tally = tally;
		this.state = { began: new Date(now).toISOString(), after: '', ...(share ? { share } : {}) };
	}

	/** The sweep's next page: the link of an empty page, else the records after the last id read. */
	private async nextPage(
		context: IPollFunctions,
		path: string,
		settings: WalkSettings,
	): Promise<ListPage> {
		const { after, link } = this.state;
		const qs: IDataObject = after ? { filter: printFilter(compare('id', 'gt', after)) } : {};
		const pages = paginate.call(context, link ?? path, link === undefined ? qs : undefined, {
			operation: `${settings.operation} (sweep for deleted records)`,
			pageSize: settings.pageSize,
			maxPages: 1,
			retry: settings.retry,
		});
		for await (const page of pages) return page;
		throw new NodeOperationError(context.getNode(), 'The service gave no page');
	}

	/** Counts a page out of the tally; false once the sweep has ended or been abandoned. */
	private read(context: IPollFunctions, page: ListPage): boolean {
		const { after, share } = this.state;
		let last = after!;
		for (const record of page.records) {
			const id = String(record.id);
			if (id <= last) {
				this.abandon(
					context,
					`the service listed id ${id} after ${last}, not in ascending id order, so which records it left out is unknown`,
				);
				return false;
			}
			last = id;
			const key = fingerprintOf(id);
			if (this.counts(key) && this.memory.get(id) !== undefined) this.tally!.add(key, -1);
		}
		const running = { began: this.state.began, ...(share ? { share } : {}) };
		if (page.records.length) {
			// no `next`: the end, once an answer for what follows this page says so too
			this.state = {
				...running,
				after: last,
				...(page.next === undefined ? { ending: true } : {}),
			};
		} else if (page.next !== undefined) {
			// no records to say more or less than the page before: what it announced stands
			const { ending } = this.state;
			this.state = { ...running, after: last, link: page.next, ...(ending ? { ending } : {}) };
		} else if (this.state.ending || this.tally!.net() === 0) {
			this.finish(context);
			return false;
		} else {
			this.abandon(
				context,
				`the service answered an empty page where more records were announced (${this.tally!.net()} remembered records not seen), as a list cut short looks`,
			);
			return false;
		}
		return true;
	}

	/** Forgets the records the sweep did not see, or plans the shares that will. */
	private finish(context: IPollFunctions): void {
		const tally = this.tally!;
		const { share } = this.state;
		const missing = tally.net();
		const remembered = this.memory.size;
		const allowed = share
			? allowanceFor(share.expected)
			: Math.min(Math.floor(tally.cells / CELLS_PER_KEY), Math.max(1, Math.ceil(remembered / 4)));
		const unseen = missing <= allowed ? tally.unseen() : undefined;
		let next: SweepShare | undefined;
		if (unseen) {
			for (const key of unseen) this.memory.forget(key);
			if (share && share.index + 1 < share.of) next = { ...share, index: share.index + 1 };
		} else {
			// what the whole memory misses, as this share's count says
			const total = missing * (share?.of ?? 1);
			if (missing <= allowed) {
				// a tally that does not read back (two keys in the same cells): smaller shares
				const of = (share?.of ?? 1) * 2;
				next = { index: 0, of, expected: Math.ceil(total / of) };
			} else {
				next = planShares(total, remembered);
			}
			context.logger.warn(
				`Stockroom Trigger: the sweep for deleted records did not see ${missing} remembered records, ${missing <= allowed ? 'and could not tell which' : `more than it forgets at once (${allowed}): a mass deletion, or reads cut short`}; it forgot none of them, and the next ${next.of} sweeps, one after another, each check a share of the records`,
			);
		}
		this.tally = undefined;
		this.state = { began: this.state.began, ...(next ? { share: next } : {}) };
	}

	/** Ends the sweep without forgetting anything; the next one begins at its time. */
	private abandon(context: IPollFunctions, why: string): void {
		context.logger.warn(
			`Stockroom Trigger: the sweep for deleted records forgot nothing: ${why}. The next sweep begins ${SWEEP_EVERY_MS / 3_600_000} hours after this one began`,
		);
		this.tally = undefined;
		this.state = { began: this.state.began };
	}

	/** The state to store: the stored one when this poll changed nothing. */
	result(): SweepState | undefined {
		if (!this.changed) return this.stored;
		return this.tally ? { ...this.state, tally: this.tally.pack() } : this.state;
	}
}
