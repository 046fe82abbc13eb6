import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { isPlainObject } from '../nodes/shared/schema/values';
import type { Store, StoreContents } from './store';

/** Acknowledged writes reach the file within this delay (plus the time to write it). */
export const FLUSH_DELAY_MS = 500;

const FORMAT = 'stockroom-sandbox';

/**
 * Loads a data file into the store; false when the file does not exist. Throws a message naming
 * the file and the problem; the file is never changed here.
 */
export function loadDataFile(path: string, store: Store): boolean {
	if (!existsSync(path)) return false;
	const fail = (problem: string) =>
		new Error(`data file ${path} ${problem}; fix or remove it (it was left untouched)`);
	let data: unknown;
	try {
		data = JSON.parse(readFileSync(path, 'utf8'));
	} catch (error) {
		throw fail(`cannot be read as JSON: ${(error as Error).message}`);
	}
	if (!isPlainObject(data) || data.format !== FORMAT) {
		throw fail(`is not a Stockroom sandbox data file (no "format": "${FORMAT}")`);
	}
	for (const key of ['assets', 'contracts', 'users', 'customFieldDefinitions']) {
		if (!Array.isArray(data[key])) throw fail(`has no "${key}" list`);
	}
	try {
		store.load(data as unknown as StoreContents);
	} catch (error) {
		throw fail(`is inconsistent: ${(error as Error).message}`);
	}
	return true;
}

/** Keeps a data file in step with the store: debounced, written to a temporary file and renamed. */
export class DataFile {
	private timer: NodeJS.Timeout | undefined;
	private writing: Promise<void> | undefined;
	private dirty = false;
	private closed = false;

	constructor(
		readonly path: string,
		private readonly store: Store,
		private readonly log: (message: string) => void,
	) {}

	/** Notes a change; the file is written within FLUSH_DELAY_MS. */
	changed(): void {
		if (this.closed) return;
		this.dirty = true;
		this.timer ??= setTimeout(() => {
			this.timer = undefined;
			this.flush().catch((error: Error) => {
				this.log(`could not write ${this.path}: ${error.message}; retrying`);
				this.changed();
			});
		}, FLUSH_DELAY_MS);
	}

	/** Writes the store now if it changed (waits for a write in progress first). */
	async flush(): Promise<void> {
		while (this.writing) await this.writing;
		if (!this.dirty) return;
		this.dirty = false;
		this.writing = this.write().finally(() => {
			this.writing = undefined;
		});
		await this.writing;
	}

	/** Final flush on stop: nothing acknowledged is lost. */
	async close(): Promise<void> {
		clearTimeout(this.timer);
		this.timer = undefined;
		await this.flush();
		this.closed = true;
	}

	private async write(): Promise<void> {
		const text = JSON.stringify({ format: FORMAT, version: 1, ...this.store.snapshot() });
		const temporary = `${this.path}.${process.pid}.tmp`;
		const file = await open(temporary, 'w');
		try {
			await file.writeFile(text);
			await file.sync();
		} finally {
			await file.close();
		}
		await rename(temporary, this.path);
	}
}
