/**
 * Issue 24: the Asset node's Sync against the same job built by hand (Get Many + Compare Datasets
 * + Create or Update + Delete), in real n8n, on one export of a source: every asset but 0.5 %
 * (those are missing), 1 % of them with a changed device name. Each pair starts from the seeded
 * service; the Sync runs once more right after its first run, when it must write nothing.
 */
import { createSandbox, type Sandbox, type SandboxStats } from '../sandbox/server';
import type { StoredRecord } from '../sandbox/store';
import { N8nBench, type RunResult } from './n8nBench';
import { loadLine, type Machine } from './report';
import { count, mb, median, ms, pairRatio, ratio } from './stats';
import { assetSync, handBuiltSync } from './workflows';

/** The fields the source owns: what a device-management export knows of a device. */
export const SYNC_FIELDS = [
	'deviceName',
	'serialNumber',
	'hardwareVendor',
	'assetType',
	'modelName',
	'status',
];

/** Assets per list page (Get Many's and the Sync's default, the service's most). */
const PAGE_SIZE = 1000;

/** One measured run and the requests the sandbox counted for it. */
export interface SyncRun {
	run: RunResult;
	/** List requests: the pages of the walk and any lookups. */
	reads: number;
	/** PUT, PATCH and DELETE requests. */
	writes: number;
}

export interface SyncFigures {
	records: number;
	/** Rows in the source: the assets less the missing ones. */
	source: number;
	changed: number;
	missing: number;
	/** Pages of one walk of the whole scope. */
	pages: number;
	/** The webhook body carrying the source, in bytes. */
	bodyBytes: number;
	sync: SyncRun[];
	/** The Sync again right after each first run. */
	again: SyncRun[];
	handBuilt: SyncRun[];
}

/** The source's export: the owned fields of every asset but each 200th, each 100th renamed. */
function exportOf(assets: readonly StoredRecord[]) {
	const items: Array<Record<string, unknown>> = [];
	let changed = 0;
	assets.forEach((asset, i) => {
		if (i % 200 === 199) return;
		const row: Record<string, unknown> = { externalId: asset.externalId };
		for (const field of SYNC_FIELDS) if (asset[field] !== undefined) row[field] = asset[field];
		if (i % 100 === 50) {
			row.deviceName = `${String(asset.deviceName)}-R`;
			changed++;
		}
		items.push(row);
	});
	return { items, changed, missing: assets.length - items.length };
}

function requestsOf(stats: SandboxStats): { reads: number; writes: number } {
	const api = Object.entries(stats.requests).filter(([route]) => route.includes(' /api/'));
	const sum = (entries: typeof api) => entries.reduce((total, [, requests]) => total + requests, 0);
	return {
		reads: sum(api.filter(([route]) => route.startsWith('GET '))),
		writes: sum(api.filter(([route]) => !route.startsWith('GET '))),
	};
}

/** The service now matches the export: its assets are the source's rows, with their values. */
function checkMatches(sandbox: Sandbox, rows: Array<Record<string, unknown>>, side: string): void {
	const stored = new Map(sandbox.store.assets.all().map((asset) => [asset.externalId, asset]));
	const wrong = rows.filter((row) => {
		const asset = stored.get(row.externalId);
		return !asset || SYNC_FIELDS.some((field) => asset[field] !== row[field]);
	});
	if (stored.size !== rows.length || wrong.length) {
		throw new Error(
			`${side}: the service holds ${stored.size} assets for ${rows.length} source rows, ` +
				`${wrong.length} not as the source has them (first: ${JSON.stringify(wrong[0])})`,
		);
	}
}

export async function syncFigures(
	records: number,
	pairs: number,
	workDir: string,
	progress: (message: string) => void,
): Promise<SyncFigures> {
	progress(`sync: seeding a sandbox with ${records} assets`);
	const sandbox = await createSandbox({ records, seed: 1 });
	try {
		const { items, changed, missing } = exportOf(sandbox.store.assets.all());
		const body = { items };
		const bodyBytes = Buffer.byteLength(JSON.stringify(body));
		// n8n refuses webhook bodies above 16 MB by default; the export is about that size
		const payloadLimit = process.env.N8N_PAYLOAD_SIZE_MAX;
		process.env.N8N_PAYLOAD_SIZE_MAX = String(Math.max(16, Math.ceil((2 * bodyBytes) / 2 ** 20)));
		const bench = await N8nBench.start(sandbox, workDir).finally(() => {
			if (payloadLimit === undefined) delete process.env.N8N_PAYLOAD_SIZE_MAX;
			else process.env.N8N_PAYLOAD_SIZE_MAX = payloadLimit;
		});
		const figures: SyncFigures = {
			records,
			source: items.length,
			changed,
			missing,
			pages: Math.ceil(records / PAGE_SIZE),
			bodyBytes,
			sync: [],
			again: [],
			handBuilt: [],
		};
		try {
			const syncUrl = await bench.deploy(assetSync('sync-asset', bench.credential, SYNC_FIELDS));
			const handUrl = await bench.deploy(handBuiltSync('sync-hand-built', bench.credential));
			const measure = async (url: string, label: string, answer: number): Promise<SyncRun> => {
				const run = await bench.run(url, body, label);
				if (run.answer.count_id !== answer)
					throw new Error(`${label}: expected ${answer} items, got ${JSON.stringify(run.answer)}`);
				return { run, ...requestsOf(sandbox.stats()) };
			};
			// no warm-up pair: a run takes seconds to minutes, far above the first use's cost
			for (let pair = 1; pair <= pairs; pair++) {
				sandbox.reset();
				// one output item per asset, the deleted ones included
				const sync = await measure(syncUrl, `sync-A-${pair}`, records);
				checkMatches(sandbox, items, 'Sync');
				const again = await measure(syncUrl, `sync-again-${pair}`, items.length);
				sandbox.reset();
				// Create or Update's records and Delete's answers
				const hand = await measure(handUrl, `sync-B-${pair}`, changed + missing);
				checkMatches(sandbox, items, 'hand-built workflow');
				figures.sync.push(sync);
				figures.again.push(again);
				figures.handBuilt.push(hand);
				progress(
					`sync pair ${pair}/${pairs}: Sync ${ms(sync.run.executionMs)} ` +
						`(${sync.reads} reads, ${sync.writes} writes; again ${ms(again.run.executionMs)}, ` +
						`${again.writes} writes), hand-built ${ms(hand.run.executionMs)} ` +
						`(${hand.reads} reads, ${hand.writes} writes; Compare Datasets ` +
						`${ms(hand.run.nodeMs['Compare Datasets'] ?? Number.NaN)}), peak RSS ` +
						`${mb(sync.run.peakRssBytes)} / ${mb(hand.run.peakRssBytes)}`,
				);
			}
		} finally {
			await bench.stop();
		}
		return figures;
	} finally {
		await sandbox.close();
	}
}

/** Sync's time over the hand-built workflow's, median of the pairs. */
export const syncRatio = (figures: SyncFigures): number =>
	pairRatio(
		figures.sync.map(({ run }) => run.executionMs),
		figures.handBuilt.map(({ run }) => run.executionMs),
	);

/** The final lines of the bench's output for this section. */
export function syncLines(figures: SyncFigures): string[] {
	const secondWrites = figures.again.reduce((total, run) => total + run.writes, 0);
	return [
		`sync ratio (Sync operation / hand-built workflow): ${ratio(syncRatio(figures))}`,
		`sync second run writes: ${secondWrites}`,
	];
}

const HAND_BUILT_NODES = ['Get Many', 'Compare Datasets', 'Create or Update', 'Delete'];

export function syncSection(figures: SyncFigures, machine: Machine): string[] {
	const { sync, again, handBuilt } = figures;
	const row = (...cells: string[]) => `| ${cells.join(' | ')} |`;
	const spread = (values: number[], show: (value: number) => string) =>
		`${show(median(values))} (${show(Math.min(...values))}–${show(Math.max(...values))})`;
	const compare = (
		label: string,
		pick: (run: SyncRun) => number,
		show: (value: number) => string,
		pickB = pick,
	) =>
		row(
			label,
			spread(sync.map(pick), show),
			spread(handBuilt.map(pickB), show),
			ratio(pairRatio(sync.map(pick), handBuilt.map(pickB))),
			spread(again.map(pick), show),
		);
	const agreed = (runs: SyncRun[], pick: (run: SyncRun) => number) => {
		const values = [...new Set(runs.map(pick))].sort((a, b) => a - b);
		return values.map(count).join(', ');
	};
	const requests = (runs: SyncRun[]) =>
		`${agreed(runs, (run) => run.reads + run.writes)} (${agreed(runs, (run) => run.reads)} reads + ${agreed(runs, (run) => run.writes)} writes)`;
	const share = (runs: SyncRun[], of: number) =>
		[...new Set(runs.map((run) => ((run.reads + run.writes) / of).toFixed(3)))].join(', ');
	const changes = figures.changed + figures.missing;
	const target = figures.pages + changes;
	const nodeTime = (nodes: string[]) => (run: SyncRun) =>
		nodes.reduce((total, node) => total + (run.run.nodeMs[node] ?? 0), 0);
	return [
		`## Issue 24: Sync against the hand-built workflow (\`--only sync\`, ${machine.date})`,
		'',
		[
			`${count(figures.records)} assets; the source's export (the webhook's body,`,
			`${mb(figures.bodyBytes)}) has ${count(figures.source)} rows: every asset but`,
			`${count(figures.missing)} (missing), ${count(figures.changed)} of them with a changed`,
			`device name. Owned fields: ${SYNC_FIELDS.join(', ')}; key External ID; missing assets`,
			'deleted. **Sync**: Split Out → Asset Sync → Count. **Hand-built**: Split Out and Asset',
			'Get Many (Return All) → Compare Datasets on External ID (Fuzzy Compare: only the',
			"source's fields are compared; Input A's version where different) → Create or Update",
			'(Merge, Use Input Item JSON) for In A only and Different, Delete by ID for In B only →',
			`Merge → Count. ${sync.length} pairs in one n8n, each from the seeded service; the Sync`,
			'runs again right after its first run. No warm-up pair (a run takes seconds to minutes).',
			"The service's state is checked after every first run: it matches the export on each side.",
			loadLine(machine),
		].join(' '),
		'',
		row('Metric', 'Sync', 'Hand-built', 'Sync / hand-built', 'Sync, second run'),
		row('---', '--:', '--:', '--:', '--:'),
		compare('**execution (startedAt → stoppedAt)**', (run) => run.run.executionMs, ms),
		compare('wall time of the webhook call', (run) => run.run.wallMs, ms),
		compare(
			`node time: Sync / ${HAND_BUILT_NODES.join(' + ')}`,
			nodeTime(['Sync']),
			ms,
			nodeTime(HAND_BUILT_NODES),
		),
		row(
			'of which Compare Datasets',
			'–',
			spread(
				handBuilt.map((run) => run.run.nodeMs['Compare Datasets'] ?? Number.NaN),
				ms,
			),
			'',
			'–',
		),
		compare('CPU time of the n8n process', (run) => run.run.n8nCpuMs, ms),
		compare('peak RSS of n8n (VmHWM)', (run) => run.run.peakRssBytes, mb),
		row(
			'API requests per run',
			requests(sync),
			requests(handBuilt),
			ratio(
				pairRatio(
					sync.map((run) => run.reads + run.writes),
					handBuilt.map((run) => run.reads + run.writes),
				),
			),
			requests(again),
		),
		row(
			`requests / (pages + changes), i.e. / ${count(target)} (target ≤ 1.05)`,
			share(sync, target),
			share(handBuilt, target),
			'',
			'',
		),
		'',
	];
}
