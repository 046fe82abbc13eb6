import { rmSync } from 'node:fs';
import path from 'node:path';

import { Expression, type IDataObject } from 'n8n-workflow';

import { StockroomTrigger } from '../nodes/StockroomTrigger/StockroomTrigger.node';
import { createSandbox, type Sandbox } from '../test/sandbox/server';
import type { StoredRecord } from '../test/sandbox/store';
import { median } from './stats';
import { requestCounts } from './traffic';

export interface PollFigures {
	event: string;
	records: number;
	changes: number;
	apiRequests: number;
	bytes: number;
	emitted: number;
	/** Median wall time of the poll over the repetitions. */
	ms: number;
}

/** The change events of assets and the field a change moves. */
const EVENTS = [
	{ event: 'assetSynced', field: 'lastSyncDtm' },
	{ event: 'recordChanged', field: 'lastModifiedDtm' },
] as const;

const REPETITIONS = 5;

/**
 * The trigger's cost per poll through n8n-core's real PollContext (test/helpers/n8n.ts) against
 * a sandbox of each size: after activation, one poll with no changes and one after `changes`
 * assets changed, for each change event of assets. Requests and bytes are the sandbox's own
 * counts (API calls only: the token is fetched once, at activation). Each case runs from a fresh
 * activation, and the changed records are put back afterwards, so no repetition sees another's
 * changes in its lookback.
 */
export async function triggerCost(sizes: number[], changes: number): Promise<PollFigures[]> {
	// loads n8n-core and its expression engine: only when this section runs
	const helpers = await import('../test/helpers/n8n');
	const figures: PollFigures[] = [];
	try {
		for (const records of sizes) figures.push(...(await pollsAt(helpers, records, changes)));
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
	changes: number,
): Promise<PollFigures[]> {
	const trigger = new StockroomTrigger();
	const sandbox = await createSandbox({ records });
	const figures: PollFigures[] = [];
	try {
		const credential = sandboxCredential(sandbox);
		for (const { event, field } of EVENTS) {
			for (const changed of [0, changes]) {
				const samples: Array<Omit<PollFigures, 'ms'> & { ms: number }> = [];
				for (let repetition = 0; repetition < REPETITIONS; repetition++) {
					const staticData: IDataObject = {};
					const poll = () =>
						runPoll(trigger, {
							parameters: { resource: 'assets', event },
							credential,
							staticData,
						});
					await poll(); // activation: "from now on"
					const originals = touch(sandbox, changed, field);
					sandbox.resetStats();
					const started = performance.now();
					const result = await poll();
					const ms = performance.now() - started;
					const stats = sandbox.stats();
					restore(sandbox, originals);
					samples.push({
						event,
						records,
						changes: changed,
						apiRequests: requestCounts(stats).api,
						bytes: stats.bytesSent,
						emitted: result?.[0].length ?? 0,
						ms,
					});
				}
				figures.push({ ...samples[samples.length - 1], ms: median(samples.map((s) => s.ms)) });
			}
		}
	} finally {
		await sandbox.close();
	}
	return figures;
}

/** Moves `field` to now on `count` assets spread over the whole table; returns the originals. */
function touch(sandbox: Sandbox, count: number, field: string): StoredRecord[] {
	const all = sandbox.store.assets.all();
	const now = new Date().toISOString();
	const originals: StoredRecord[] = [];
	for (let i = 0; i < count; i++) {
		const record = all[Math.floor((i * all.length) / count)];
		originals.push(record);
		sandbox.store.assets.put({ ...record, [field]: now });
	}
	return originals;
}

function restore(sandbox: Sandbox, originals: StoredRecord[]): void {
	for (const record of originals) sandbox.store.assets.put(record);
}
