import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { compare, printFilter } from '../shared/filter';
import { paginate } from '../shared/transport';
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
import type { WalkSettings } from './walk';

/**
 * Forgetting deleted records. No list says what was deleted, so a sweep lists the whole scope in
 * id order (`id gt` the last id read, never a resume link that could expire), a few pages per
 * poll, and at its end forgets the remembered records it did not see.
 *
 * The memory knows fingerprints, not ids, and a million of them cannot be marked as seen without
 * rewriting every bucket. So the sweep keeps a tally instead (an invertible Bloom lookup table of a
 * few hundred cells, whatever the fleet's size): every key the memory held when the sweep began
 * counts +1, every remembered record a page shows counts -1, and a key the poll's own walk learns
 * or drops while the sweep runs is counted so that it nets to zero. At the end only the keys of
 * records the sweep never saw are left, and the tally gives them back one by one. A tally with too
 * many of them to give back forgets nothing (the next sweep gets a larger one): the sweep can fail
 * to forget, never forget a record that is there.
 */
export interface SweepState {
	/** When the latest sweep began (service clock, ISO); none yet: counted from activation. */
	began: string;
	/** While a sweep runs: the last id it read ('' before its first page). */
	after?: string;
	/** While a sweep runs: the packed tally (see the file comment). */
	tally?: string;
	/** Cells of the next sweep's tally, when more than the default. */
	cells?: number;
}

/** A sweep begins this long after the previous one began: a deletion is forgotten within a day. */
export const SWEEP_EVERY_MS = 12 * 3_600_000;
/** The most list requests a poll spends on the sweep. */
export const SWEEP_PAGES_PER_POLL = 4;
/** Enough for about 190 deletions per sweep (cells per key above 1.23 read back whole). */
const DEFAULT_CELLS = 240;
/** A tally never grows past this (at most about 460 KB of state): a sweep that finds more forgets nothing. */
const MAX_CELLS = 3 * 8192;
const HASHES = 3;

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

	/**
	 * The keys counted +1 more than -1 (in the memory at the start, never seen); undefined when the
	 * tally cannot be read back whole (too many keys left for its size).
	 */
	unseen(): MemoryKey[] | undefined {
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

	/**
	 * The walk is about to remember `id` (learned: it was unknown) or drop it. A key learned ahead
	 * of the sweep counts +1 (the sweep will see it, or it was deleted); one learned behind it is
	 * one the sweep has passed and never counts; a dropped key counts -1 (it nets to zero whether
	 * the sweep saw it or not, and forgetting an absent key is nothing).
	 */
	account(id: string, change: 'learned' | 'dropped'): void {
		if (!this.tally || (change === 'learned' && id <= this.state.after!)) return;
		this.tally.add(fingerprintOf(id), change === 'learned' ? 1 : -1);
		this.changed = true;
	}

	/** Whether a sweep runs or is due at `now` (service clock, ms). */
	due(now: number): boolean {
		return this.tally !== undefined || now - Date.parse(this.state.began) >= SWEEP_EVERY_MS;
	}

	/**
	 * Begins a sweep if none runs, then reads a page of it and up to SWEEP_PAGES_PER_POLL within
	 * the budget; at its last page, forgets what it did not see. A page that fails is read next time.
	 */
	async step(
		context: IPollFunctions,
		path: string,
		settings: WalkSettings,
		now: number,
	): Promise<void> {
		this.changed = true;
		if (!this.tally) {
			this.tally = new Tally(this.state.cells ?? DEFAULT_CELLS);
			const tally = this.tally;
			this.memory.forEachKey((key) => tally.add(key, 1));
			this.state = { began: new Date(now).toISOString(), after: '' };
		}
		try {
			// one page whatever is left of the budget (the walk before it was whole), more within it
			for (let pages = 0; pages < SWEEP_PAGES_PER_POLL; pages++) {
				if (pages > 0 && !settings.withinBudget()) break;
				const after = this.state.after!;
				const qs: IDataObject = after ? { filter: printFilter(compare('id', 'gt', after)) } : {};
				let last: string | undefined;
				let more = false;
				for await (const page of paginate.call(context, path, qs, {
					operation: `${settings.operation} (sweep for deleted records)`,
					pageSize: settings.pageSize,
					maxPages: 1,
					retry: settings.retry,
				})) {
					for (const record of page.records) {
						const id = String(record.id);
						if (this.memory.get(id) !== undefined) this.tally.add(fingerprintOf(id), -1);
						if (last === undefined || id > last) last = id;
					}
					more = page.next !== undefined && last !== undefined;
				}
				if (!more) return this.finish();
				this.state = { ...this.state, after: last };
			}
		} catch (error) {
			context.logger.warn(
				`Stockroom Trigger: the sweep for deleted records continues at the next poll: ${(error as Error).message}`,
			);
		}
	}

	private finish(): void {
		const unseen = this.tally!.unseen();
		for (const key of unseen ?? []) this.memory.forget(key);
		// a tally too small for what it had to give back: a larger one next time
		const cells = unseen ? this.tally!.cells : Math.min(this.tally!.cells * 2, MAX_CELLS);
		this.tally = undefined;
		this.state = {
			began: this.state.began,
			...(cells !== DEFAULT_CELLS ? { cells } : {}),
		};
	}

	/** The state to store: the stored one when this poll changed nothing. */
	result(): SweepState | undefined {
		if (!this.changed) return this.stored;
		return this.tally ? { ...this.state, tally: this.tally.pack() } : this.state;
	}
}
