import { rmSync } from 'node:fs';
import path from 'node:path';

import { Expression, type IDataObject } from 'n8n-workflow';

import { StockroomTrigger } from '../nodes/StockroomTrigger/StockroomTrigger.node';
import { createSandbox, type Sandbox } from '../sandbox/server';
import type { StoredRecord } from '../sandbox/store';
import { median } from './stats';
import { requestCounts } from './traffic';

export interface PollFigures {
	event: string;
	records: number;
	/**
	 * Changed assets; 'activation' for the first poll (its baseline walk); 'sweep' for the poll
	 * that begins a sweep for deleted records (half a day after activation, nothing changed).
	 */
	changes: number | 'activation' | 'sweep';
	apiRequests: number;
	bytes: number;
	emitted: number;
	/** Median wall time of the poll over the repetitions. */
	ms: number;
	/** The trigger's static data after the poll, as JSON (what n8n stores). */
	stateBytes: number;
	/** Characters of that JSON the poll changed (0: byte for byte as before; n8n commits nothing). */
	stateChangedBytes: number;
	/** CPU time of this process during the poll (the in-process sandbox's answers included). */
	cpuMs: number;
}

/** The change events of assets and the field a change moves. */
const EVENTS = [
	{ event: 'assetSynced', field: 'lastSyncDtm' },
	{ event: 'recordChanged', field: 'lastModifiedDtm' },
] as const;

/** Polls per figure, each from a fresh activation: its median is the figure. */
export const REPETITIONS = 3;

/**
 * The trigger's cost per poll through n8n-core's real PollContext (test/helpers/n8n.ts) against
 * a sandbox of each size: the activation poll, then after activation one poll with no changes and
 * one after each count of `changes` assets changed (the service stamps each write), for each
 * change event of assets. Requests and bytes are the sandbox's own counts (API calls only: the
 * token is fetched once, at activation). Each case runs from a fresh activation on a service
 * clock an hour later than the last, and the changed records are put back afterwards, so no
 * repetition sees another's changes. At `largest` each case runs once, and the cases of an event
 * follow one activation in turn (activation, idle poll, one change, the sweep): an activation of
 * Asset Synced reads every asset, a minute and a half at a million, where one per case made the
 * section take most of the bench's half hour.
 */
export async function triggerCost(
	sizes: number[],
	changes: number[],
	largest?: number,
): Promise<PollFigures[]> {
	// loads n8n-core and its expression engine: only when this section runs
	const helpers = await import('../test/helpers/n8n');
	const figures: PollFigures[] = [];
	try {
		for (const records of sizes) {
			figures.push(...(await pollsAt(helpers, records, changes, REPETITIONS)));
		}
		if (largest) figures.push(...(await pollsAt(helpers, largest, [1], 1, true)));
	} finally {
		// outside jest nothing else undoes what the helper set up (jest's afterAll does)
		await Expression.disposeExpressionEngine(); // its isolate would keep us alive
		const { Container } = await import('@n8n/di');
		const { InstanceSettings } = await import('n8n-core');
		const folder = Container.get(InstanceSettings).n8nFolder;
		if (path.basename(folder).startsWith('stockroom-jest-n8n-')) {
			rmSync(folder, { recursive: true, force: true });
		}
	}
	return figures;
}

async function pollsAt(
	{ runPoll, sandboxCredential }: typeof import('../test/helpers/n8n'),
	records: number,
	changes: number[],
	repetitions: number,
	oneActivation = false,
): Promise<PollFigures[]> {
	const trigger = new StockroomTrigger();
	const sandbox = await createSandbox({ records });
	let now = Date.now();
	sandbox.setClock(() => new Date(now));
	const figures: PollFigures[] = [];
	try {
		const credential = sandboxCredential(sandbox);
		for (const { event, field } of EVENTS) {
			// with oneActivation, the static data of the event's one activation, poll after poll
			const activated: IDataObject = {};
			const sweeps = event === 'assetSynced' ? ['sweep' as const] : [];
			for (const changed of ['activation' as const, 0, ...changes, ...sweeps]) {
				const samples: PollFigures[] = [];
				for (let repetition = 0; repetition < repetitions; repetition++) {
					if (!oneActivation || changed === 'activation') now += 3_600_000;
					const staticData: IDataObject = oneActivation ? activated : {};
					const poll = () =>
						runPoll(trigger, {
							parameters: { resource: 'assets', event },
							credential,
							staticData,
						});
					const measure = async (): Promise<PollFigures> => {
						sandbox.resetStats();
						const before = JSON.stringify(staticData);
						const cpu = process.cpuUsage();
						const started = performance.now();
						const result = await poll();
						const ms = performance.now() - started;
						const { user, system } = process.cpuUsage(cpu);
						const after = JSON.stringify(staticData);
						const stats = sandbox.stats();
						return {
							event,
							records,
							changes: changed,
							apiRequests: requestCounts(stats).api,
							bytes: stats.bytesSent,
							emitted: result?.[0].length ?? 0,
							ms,
							stateBytes: after.length,
							stateChangedBytes: changedCharacters(before, after),
							cpuMs: (user + system) / 1000,
						};
					};
					if (changed === 'activation') {
						samples.push(await measure());
						continue;
					}
					if (!oneActivation) await poll(); // activation: "from now on"
					if (changed === 'sweep') {
						now += 13 * 3_600_000;
						samples.push(await measure());
						continue;
					}
					now += 60_000;
					const originals = touch(sandbox, changed, field, now);
					now += 60_000;
					samples.push(await measure());
					// polls in turn keep the change: put back, it would be a change to the next poll
					if (!oneActivation) restore(sandbox, originals);
				}
				figures.push({ ...samples[samples.length - 1], ms: median(samples.map((s) => s.ms)) });
			}
		}
	} finally {
		await sandbox.close();
	}
	return figures;
}

/**
 * Sets `field` to `at` on `count` assets spread over the whole table, as writes the service
 * stamps at `at`; returns the originals.
 */
function touch(sandbox: Sandbox, count: number, field: string, at: number): StoredRecord[] {
	const all = sandbox.store.assets.all();
	const stamp = new Date(at).toISOString();
	const originals: StoredRecord[] = [];
	for (let i = 0; i < count; i++) {
		const record = all[Math.floor((i * all.length) / count)];
		originals.push(record);
		sandbox.store.assets.put({ ...record, [field]: stamp, lastModifiedDtm: stamp });
	}
	return originals;
}

/** How many characters differ between two texts (position by position, plus the length change). */
function changedCharacters(before: string, after: string): number {
	let changed = Math.abs(before.length - after.length);
	for (let i = 0; i < Math.min(before.length, after.length); i++)
		if (before.charCodeAt(i) !== after.charCodeAt(i)) changed++;
	return changed;
}

function restore(sandbox: Sandbox, originals: StoredRecord[]): void {
	for (const record of originals) sandbox.store.assets.put(record);
}
