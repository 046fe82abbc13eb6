/**
 * Issues 24 and 31: the Asset node's Sync in real n8n, on one export of a source: every asset but
 * 0.5 % (those are missing, and deleted), 1 % of them with a changed device name.
 *
 * - At 100,000 assets: the Sync's first run and its second run (which must write nothing), and
 *   a Get Many (Return All) of the same assets in the same n8n, for the Sync's time over a list's.
 * - The same job built by hand (Get Many + Compare Datasets + Create or Update + Delete), beside
 *   the Sync, at sizes where it finishes in seconds: Compare Datasets' time grows with the square
 *   of the rows (31.5 minutes at 100,000 here), so its time at 100,000 is scaled from the growth
 *   measured between the two sizes, and said to be an estimate.
 * - Planning alone, in this process: 100,000 rows of which 50,000 share one placeholder key.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';
import { assetSchema } from '../nodes/shared/schema/asset';
import { canonical, planId, SetDigest } from '../nodes/shared/sync/entries';
import { resolveRows } from '../nodes/shared/sync/identity';
import { scopeRule } from '../nodes/shared/sync/scope';
import { DEFAULT_PLACEHOLDER_KEYS, placeholderTest } from '../nodes/shared/sync/keys';
import { ASSETS_PATH } from '../nodes/shared/resources';
import { requestFor } from '../nodes/shared/transport/send';
import { planSync } from '../nodes/StockroomAsset/sync/plan';
import { readRow, type Ownership } from '../nodes/StockroomAsset/sync/source';
import { createSandbox, type Sandbox, type SandboxStats } from '../sandbox/server';
import { n8nInstallDir } from '../scripts/n8n';
import type { StoredRecord } from '../sandbox/store';
import { runFloorScript } from './floor';
import { N8nBench, type RunResult } from './n8nBench';
import { loadLine, type Machine } from './report';
import { count, mb, median, ms, pairRatio, ratio, runMetricRows, spread, tableRow } from './stats';
import { assetList, assetSync, handBuiltSync } from './workflows';

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
/** Measured runs of the Sync and of Get Many at the full size, after a warm-up run of each. */
const MEASURED_RUNS = 2;

export interface SyncRun {
	run: RunResult;
	/** List requests: the pages of the walk and any lookups. */
	reads: number;
	/** PUT, PATCH and DELETE requests. */
	writes: number;
}

/** The Sync beside the hand-built workflow at one size. */
export interface SideBySide {
	records: number;
	sync: SyncRun[];
	handBuilt: SyncRun[];
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
	/** Get Many, Return All, of the same assets in the same n8n. */
	listAll: RunResult[];
	/** The hand-built workflow beside the Sync, at smaller sizes. */
	sideBySide: SideBySide[];
	/** Planning 100,000 rows, 50,000 of them on one placeholder key, in milliseconds. */
	planMs: number[];
	/** A first import: the Sync of as many new assets into an empty scope, and its floor. */
	firstImport: FirstImport;
}

/** Issue 41: every row of the export is a new asset. */
export interface FirstImport {
	run: SyncRun;
	/** The same creates sent by a plain `fetch` loop, 8 in flight, with the same token. */
	floorMs: number;
	/**
	 * The same creates sent through n8n's own request helper (the function a node's
	 * `helpers.httpRequest` calls, with the options the nodes give it), 8 in flight: the least any
	 * node can take over these writes in this n8n.
	 */
	helperMs: number;
}

/** The scope of the first import: assets that are not in the register yet. */
const NEW_PREFIX = 'NEW-';

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

/** A sandbox of `records` assets with n8n's webhook body limit raised to carry its export. */
async function seeded(records: number) {
	const sandbox = await createSandbox({ records, seed: 1 });
	const { items, changed, missing } = exportOf(sandbox.store.assets.all());
	return { sandbox, items, changed, missing, body: { items } };
}

/** Runs a deployed workflow and checks its answer (the Count node's count of items). */
async function measure(
	bench: N8nBench,
	sandbox: Sandbox,
	url: string,
	label: string,
	body: unknown,
	answer: number,
): Promise<SyncRun> {
	const run = await bench.run(url, body, label, sandbox);
	if (run.answer.count_id !== answer)
		throw new Error(`${label}: expected ${answer} items, got ${JSON.stringify(run.answer)}`);
	return { run, ...requestsOf(sandbox.stats()) };
}

export async function syncFigures(
	records: number,
	sideBySideSizes: number[],
	workDir: string,
	progress: (message: string) => void,
): Promise<SyncFigures> {
	progress(`sync: seeding a sandbox with ${records} assets`);
	const big = await seeded(records);
	const smaller = [];
	for (const size of sideBySideSizes) smaller.push(await seeded(size));
	const bodyBytes = Buffer.byteLength(JSON.stringify(big.body));
	// n8n refuses webhook bodies above 16 MB by default; the export is about that size
	const payloadLimit = process.env.N8N_PAYLOAD_SIZE_MAX;
	process.env.N8N_PAYLOAD_SIZE_MAX = String(Math.max(16, Math.ceil((2 * bodyBytes) / 2 ** 20)));
	const bench = await N8nBench.start(big.sandbox, workDir).finally(() => {
		if (payloadLimit === undefined) delete process.env.N8N_PAYLOAD_SIZE_MAX;
		else process.env.N8N_PAYLOAD_SIZE_MAX = payloadLimit;
	});
	const figures: SyncFigures = {
		records,
		source: big.items.length,
		changed: big.changed,
		missing: big.missing,
		pages: Math.ceil(records / PAGE_SIZE),
		bodyBytes,
		sync: [],
		again: [],
		listAll: [],
		sideBySide: [],
		planMs: [],
		firstImport: undefined as unknown as FirstImport,
	};
	try {
		const syncUrl = await bench.deploy(assetSync('sync-asset', bench.credential, SYNC_FIELDS));
		const listUrl = await bench.deploy(assetList('sync-list-all', bench.credential));
		// the list first (its first run warms n8n up), then the Sync's first and second runs
		for (let run = 0; run <= MEASURED_RUNS; run++) {
			const listed = await bench.run(listUrl, {}, `sync-list-all-${run}`);
			if (listed.answer.count_id !== records)
				throw new Error(
					`list all: expected ${records} items, got ${JSON.stringify(listed.answer)}`,
				);
			if (run > 0) figures.listAll.push(listed);
		}
		progress(
			`sync: Get Many at ${count(records)}: ${ms(median(figures.listAll.map(assetNodeMs)))}`,
		);
		// a warm-up run, then the measured ones: each from the seeded service, and again right after it
		for (let run = 0; run <= MEASURED_RUNS; run++) {
			big.sandbox.reset();
			// one output item per asset, the deleted ones included
			const sync = await measure(bench, big.sandbox, syncUrl, `sync-A-${run}`, big.body, records);
			checkMatches(big.sandbox, big.items, 'Sync');
			const again = await measure(
				bench,
				big.sandbox,
				syncUrl,
				`sync-again-${run}`,
				big.body,
				big.items.length,
			);
			if (run > 0) {
				figures.sync.push(sync);
				figures.again.push(again);
			}
			progress(
				`sync at ${count(records)}, run ${run}${run ? '' : ' (warm-up)'}: ${ms(sync.run.executionMs)} ` +
					`(node ${ms(sync.run.nodeMs.Sync)}, ${sync.reads} reads, ${sync.writes} writes); again ` +
					`${ms(again.run.executionMs)}, ${again.writes} writes`,
			);
		}

		figures.firstImport = await firstImport(bench, big.sandbox, workDir, progress);

		for (const { sandbox, items, changed, missing, body } of smaller) {
			const size = sandbox.store.assets.size;
			const credential = await bench.addCredential(sandbox, `Stockroom sandbox ${size}`);
			const syncSmall = await bench.deploy(
				assetSync(`sync-asset-${size}`, credential, SYNC_FIELDS),
			);
			const hand = await bench.deploy(handBuiltSync(`sync-hand-built-${size}`, credential));
			const side: SideBySide = { records: size, sync: [], handBuilt: [] };
			// a warm-up pair, then two measured pairs
			for (let pair = 0; pair <= 2; pair++) {
				sandbox.reset();
				const a = await measure(bench, sandbox, syncSmall, `sync-${size}-A-${pair}`, body, size);
				checkMatches(sandbox, items, 'Sync');
				sandbox.reset();
				// Create or Update's records and Delete's answers
				const b = await measure(
					bench,
					sandbox,
					hand,
					`sync-${size}-B-${pair}`,
					body,
					changed + missing,
				);
				checkMatches(sandbox, items, 'hand-built workflow');
				if (pair > 0) {
					side.sync.push(a);
					side.handBuilt.push(b);
				}
				progress(
					`sync at ${count(size)}, pair ${pair}${pair ? '' : ' (warm-up)'}: Sync ${ms(a.run.executionMs)}, ` +
						`hand-built ${ms(b.run.executionMs)} (Compare Datasets ` +
						`${ms(b.run.nodeMs['Compare Datasets'] ?? Number.NaN)})`,
				);
			}
			figures.sideBySide.push(side);
		}
	} finally {
		await bench.stop();
		await big.sandbox.close();
		for (const { sandbox } of smaller) await sandbox.close();
	}
	figures.planMs = planFigures(progress);
	return figures;
}

const assetNodeMs = (run: RunResult) => run.nodeMs['Asset node'] ?? Number.NaN;

/**
 * Creates each body with `PUT /api/assets/v1`, 8 in flight, and prints the time. With no request
 * given, by Node's `fetch` (it keeps its connections alive): the least a client can take over
 * these writes. With one (the request a node gives n8n, as JSON, and n8n's node_modules), by
 * n8n's own request helper: n8n 2.x's `@n8n/backend-network` (what `helpers.httpRequest` calls,
 * SSRF protection off as n8n's default), else n8n 1.x's n8n-core.
 */
const PUT_LOOP = `
const [url, token, file, request, n8nModules] = process.argv.slice(1);
const bodies = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
const viaFetch = async (body) => {
	const response = await fetch(url + '/api/assets/v1', {
		method: 'PUT',
		headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!response.ok) throw new Error('PUT answered ' + response.status);
	await response.arrayBuffer();
};
const n8nHelper = () => {
	try {
		const { httpRequest } = require(n8nModules + '/@n8n/backend-network/dist/http/axios/request.js');
		return (options) => httpRequest(options, undefined);
	} catch {
		return require(n8nModules + '/n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions.js').httpRequest;
	}
};
const viaHelper = (send, template) => async (body) => {
	const response = await send({ ...template, headers: { ...template.headers, Authorization: 'Bearer ' + token }, body });
	if (response.statusCode >= 300) throw new Error('PUT answered ' + response.statusCode);
};
const put = request ? viaHelper(n8nHelper(), JSON.parse(request)) : viaFetch;
(async () => {
	const started = performance.now();
	let next = 0;
	const worker = async () => {
		while (next < bodies.length) await put(bodies[next++]);
	};
	await Promise.all(Array.from({ length: 8 }, worker));
	console.log(JSON.stringify({ ms: performance.now() - started }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/** The request the Asset node gives n8n's helper for a create (send.ts's own), as JSON. */
const helperRequest = (sandbox: Sandbox): string =>
	JSON.stringify(
		requestFor({
			method: 'PUT',
			url: `${sandbox.url}${ASSETS_PATH}`,
			baseUrl: sandbox.url,
			options: { operation: 'create the asset', answer: 'record' },
		}),
	);

/** Creates `bodies` by PUT_LOOP (through n8n's helper with `viaHelper`), then resets the service. */
async function putLoop(
	name: string,
	sandbox: Sandbox,
	bodies: object[],
	workDir: string,
	viaHelper = false,
): Promise<number> {
	const file = `${workDir}/first-import-bodies.json`;
	writeFileSync(file, JSON.stringify(bodies));
	try {
		const helper = viaHelper
			? [helperRequest(sandbox), path.join(n8nInstallDir(), 'node_modules')]
			: [];
		const { ms } = await runFloorScript<{ ms: number }>(name, PUT_LOOP, [
			sandbox.url,
			sandbox.token(),
			file,
			...helper,
		]);
		if (sandbox.store.assets.size < bodies.length)
			throw new Error(`the ${name} left ${sandbox.store.assets.size} assets for ${bodies.length}`);
		return ms;
	} finally {
		rmSync(file, { force: true });
		sandbox.reset();
	}
}

/**
 * Issue 41's first import: the export's rows as new assets (another External ID and serial) into a
 * scope that holds none of them, so the Sync creates every one; then the same creates by a plain
 * `fetch` loop. The service is reset after each.
 */
async function firstImport(
	bench: N8nBench,
	sandbox: Sandbox,
	workDir: string,
	progress: (message: string) => void,
): Promise<FirstImport> {
	sandbox.reset();
	const fresh = sandbox.store.assets.all().map((asset) => {
		const row: Record<string, unknown> = { externalId: `${NEW_PREFIX}${String(asset.externalId)}` };
		for (const field of SYNC_FIELDS) if (asset[field] !== undefined) row[field] = asset[field];
		if (asset.serialNumber !== undefined)
			row.serialNumber = `${NEW_PREFIX}${String(asset.serialNumber)}`;
		return row;
	});
	const url = await bench.deploy(
		assetSync('sync-first-import', bench.credential, SYNC_FIELDS, `externalId sw "${NEW_PREFIX}"`),
	);
	const run = await measure(
		bench,
		sandbox,
		url,
		'sync-first-import',
		{ items: fresh },
		fresh.length,
	);
	const created = sandbox.store.assets
		.all()
		.filter((asset) => String(asset.externalId).startsWith(NEW_PREFIX)).length;
	if (run.writes !== fresh.length || created !== fresh.length)
		throw new Error(
			`first import: ${run.writes} writes and ${created} new assets for ${fresh.length} rows`,
		);
	sandbox.reset();
	const floorMs = await putLoop('PUT loop', sandbox, fresh, workDir);
	const helperMs = await putLoop("n8n's request helper loop", sandbox, fresh, workDir, true);
	progress(
		`sync first import of ${count(fresh.length)}: node ${ms(run.run.nodeMs.Sync)}, ` +
			`n8n CPU ${ms(run.run.n8nCpuMs)}; fetch floor ${ms(floorMs)}, n8n's helper ${ms(helperMs)}`,
	);
	return { run, floorMs, helperMs };
}

/**
 * Planning alone, as the Sync does it between the walk and the first write: 100,000 rows, 50,000
 * of them on one placeholder serial and 1,000 on one real serial, against 100,000 assets.
 */
function planFigures(progress: (message: string) => void): number[] {
	const rowsCount = 100_000;
	const own: Ownership = {
		key: 'serialNumber',
		fields: ['deviceName', 'hardwareVendor'],
		createOnly: [],
		customFields: [],
		absent: 'keep',
		isPlaceholder: placeholderTest({ name: 'bench' } as never, DEFAULT_PLACEHOLDER_KEYS),
		timezone: 'UTC',
	};
	const scope: IDataObject[] = Array.from({ length: rowsCount }, (_, n) => ({
		id: n.toString(16).padStart(24, '0'),
		externalId: `DEV-${n}`,
		serialNumber: `SN-${n}`,
		deviceName: `Device ${n}`,
		hardwareVendor: 'Dell',
	}));
	const columns = Array.from({ length: rowsCount }, (_, n) => ({
		fields: {
			externalId: `DEV-${n}`,
			serialNumber: n % 2 ? 'To Be Filled By O.E.M.' : n < 2000 ? 'SN-SHARED' : `SN-${n}`,
			deviceName: `Device ${n}`,
			hardwareVendor: 'Dell',
		},
		custom: {},
	}));
	const times: number[] = [];
	for (let run = 0; run < 4; run++) {
		const started = performance.now();
		const rows = columns.map((row, item) => readRow(item, row, own));
		const resolution = resolveRows(
			rows,
			scope,
			{ keyField: 'serialNumber', keyLabel: 'Serial Number', noun: 'asset', nouns: 'assets' },
			own.isPlaceholder,
		);
		const plan = planSync(
			rows,
			resolution,
			scope,
			own,
			{ action: 'delete', status: 'Retired', returning: 'restore' },
			{ rule: scopeRule(undefined, assetSchema), wrapCustom: () => undefined, definitions: [] },
		);
		// the plan id, with the input's digest, as every run computes it
		const input = new SetDigest();
		for (const item of columns) input.add(canonical(item.fields));
		planId(plan.entries, {
			newest: 0,
			settings: '000000',
			input: input.short(),
			register: '000000',
		});
		const elapsed = performance.now() - started;
		const longest = Math.max(
			...plan.entries.map((entry) => (entry.action === 'failed' ? entry.error.message.length : 0)),
		);
		if (longest > 300) throw new Error(`a refusal's message has ${longest} characters`);
		if (run > 0) times.push(elapsed);
	}
	progress(`sync planning, 100,000 rows with 50,000 on one key: ${ms(median(times))}`);
	return times;
}

/** Sync's time over the hand-built workflow's at the largest side-by-side size, median of pairs. */
export const syncRatio = (figures: SyncFigures): number => {
	const side = figures.sideBySide.at(-1)!;
	return pairRatio(
		side.sync.map(({ run }) => run.executionMs),
		side.handBuilt.map(({ run }) => run.executionMs),
	);
};

/** The Sync node's time over the Get Many node's, at the full size in the same n8n. */
export const syncOverListAll = (figures: SyncFigures): number =>
	median(figures.sync.map(({ run }) => run.nodeMs.Sync)) / median(figures.listAll.map(assetNodeMs));

/**
 * The hand-built workflow's time at the full size, estimated: Compare Datasets compares every row
 * with every record, so its time is taken as a + b·n + c·n² is to the two measured sizes with no
 * constant (a = 0): b and c from the two, then n = the full size. A measurement at 100,000 took
 * 31.5 minutes here (2026-11-24), above this estimate: it is a floor.
 */
export function handBuiltEstimate(figures: SyncFigures): number {
	const [small, large] = figures.sideBySide.map((side) => ({
		n: side.records,
		t: median(side.handBuilt.map(({ run }) => run.executionMs)),
	}));
	const quadratic = (large.t / large.n - small.t / small.n) / (large.n - small.n);
	const linear = small.t / small.n - quadratic * small.n;
	return linear * figures.records + quadratic * figures.records ** 2;
}

/** The first import's Sync node time over its floor's. */
export const firstImportOverFloor = ({ firstImport }: SyncFigures): number =>
	firstImport.run.run.nodeMs.Sync / firstImport.floorMs;

/** n8n's CPU over the first import's writes: all of the run's, per write (an upper bound). */
export const cpuPerWrite = ({ firstImport }: SyncFigures): number =>
	firstImport.run.run.n8nCpuMs / firstImport.run.writes;

/** The final lines of the bench's output for this section. */
export function syncLines(figures: SyncFigures): string[] {
	const secondWrites = figures.again.reduce((total, run) => total + run.writes, 0);
	const { firstImport } = figures;
	return [
		`sync first import, ${count(firstImport.run.writes)} new assets: ${(firstImport.run.run.nodeMs.Sync / 1000).toFixed(1)} s; over the fetch floor (same writes, 8 in flight): ${ratio(firstImportOverFloor(figures))}`,
		`sync first import through n8n's request helper alone (same writes, 8 in flight): ${(firstImport.helperMs / 1000).toFixed(1)} s; over the fetch floor: ${ratio(firstImport.helperMs / firstImport.floorMs)}; the Sync over it: ${ratio(firstImport.run.run.nodeMs.Sync / firstImport.helperMs)}`,
		`n8n CPU per write request (ms): ${cpuPerWrite(figures).toFixed(2)}`,
		`sync ratio (Sync operation / hand-built workflow): ${ratio(syncRatio(figures))}`,
		`sync second run writes: ${secondWrites}`,
		`sync time over list-all time (${count(figures.records)} assets, same run): ${ratio(syncOverListAll(figures))}`,
		`sync planning, 100,000 rows with 50,000 on one key: ${ms(median(figures.planMs))}`,
	];
}

const HAND_BUILT_NODES = ['Get Many', 'Compare Datasets', 'Create or Update', 'Delete'];

export function syncSection(figures: SyncFigures, machine: Machine): string[] {
	const { sync, again, listAll } = figures;
	const row = tableRow;
	const requests = (runs: SyncRun[]) =>
		[
			...new Set(
				runs.map(
					(run) =>
						`${count(run.reads + run.writes)} (${count(run.reads)} reads + ${count(run.writes)} writes)`,
				),
			),
		].join(', ');
	const changes = figures.changed + figures.missing;
	const target = figures.pages + changes;
	const share = (runs: SyncRun[]) =>
		[...new Set(runs.map((run) => ((run.reads + run.writes) / target).toFixed(3)))].join(', ');
	const nodeTime = (nodes: string[]) => (run: SyncRun) =>
		nodes.reduce((total, node) => total + (run.run.nodeMs[node] ?? 0), 0);
	const estimate = handBuiltEstimate(figures);
	const full = count(figures.records);
	const lines = [
		`## Issues 24 and 31: Sync in real n8n (\`--only sync\`, ${machine.date})`,
		'',
		[
			`${full} assets; the source's export (the webhook's body, ${mb(figures.bodyBytes)}) has`,
			`${count(figures.source)} rows: every asset but ${count(figures.missing)} (missing, deleted),`,
			`${count(figures.changed)} of them with a changed device name. Owned fields:`,
			`${SYNC_FIELDS.join(', ')}; key External ID. **Sync**: Split Out → Asset Sync → Count;`,
			'it runs again right after its first run, when it must write nothing (a warm-up pair, then',
			`${MEASURED_RUNS}, each from the seeded service). **Get Many**: Asset Get Many (Return All) → Count over`,
			`the same assets in the same n8n (a warm-up run, then ${MEASURED_RUNS}). The service's state is checked`,
			'after every first run: it matches the export.',
			loadLine(machine),
		].join(' '),
		'',
		row('Metric', `Sync at ${full}`, 'Sync, second run', `Get Many at ${full}`),
		row('---', '--:', '--:', '--:'),
		row(
			'**node time**',
			spread(sync.map(nodeTime(['Sync'])), ms),
			spread(again.map(nodeTime(['Sync'])), ms),
			spread(listAll.map(assetNodeMs), ms),
		),
		...runMetricRows(
			sync.map(({ run }) => run),
			again.map(({ run }) => run),
			listAll,
		),
		row('API requests per run', requests(sync), requests(again), count(listAll[0].apiRequests)),
		row(
			`requests / (pages + changes), i.e. / ${count(target)} (target ≤ 1.05)`,
			share(sync),
			'',
			'',
		),
		'',
		`Sync's node time over Get Many's: **${ratio(syncOverListAll(figures))}** (target ≤ 2.0).`,
		'',
		[
			'**Beside the hand-built workflow** (Split Out and Asset Get Many (Return All) → Compare',
			"Datasets on External ID (Fuzzy Compare: only the source's fields are compared; Input",
			"A's version where different) → Create or Update (Merge, Use Input Item JSON) for In A only",
			'and Different, Delete by ID for In B only → Merge → Count), each side from the seeded',
			'service, a warm-up pair then two pairs, at sizes where the hand-built workflow finishes',
			'in seconds:',
		].join(' '),
		'',
		row(
			'Assets',
			'Sync',
			'Hand-built',
			'of which Compare Datasets',
			'Sync / hand-built',
			'requests: Sync, hand-built',
		),
		row('--:', '--:', '--:', '--:', '--:', '--:'),
		...figures.sideBySide.map((side) =>
			row(
				count(side.records),
				spread(
					side.sync.map(({ run }) => run.executionMs),
					ms,
				),
				spread(
					side.handBuilt.map(({ run }) => run.executionMs),
					ms,
				),
				spread(
					side.handBuilt.map(({ run }) => run.nodeMs['Compare Datasets'] ?? Number.NaN),
					ms,
				),
				ratio(
					pairRatio(
						side.sync.map(({ run }) => run.executionMs),
						side.handBuilt.map(({ run }) => run.executionMs),
					),
				),
				`${requests(side.sync)}; ${requests(side.handBuilt)}`,
			),
		),
		'',
		[
			`Scaled to ${full} (an estimate, not a measurement): with its time taken as linear plus`,
			`quadratic in the size through the two sizes above, the hand-built workflow would take about`,
			`${ms(estimate)} at ${full} (a floor: one run at 100,000 took 31.5 minutes here on`,
			`2026-11-24), against the Sync's ${ms(median(sync.map(({ run }) => run.executionMs)))}`,
			`(${ratio(median(sync.map(({ run }) => run.executionMs)) / estimate)} of it). Node time of the`,
			`hand-built nodes (${HAND_BUILT_NODES.join(', ')}) at the largest size:`,
			`${spread(figures.sideBySide.at(-1)!.handBuilt.map(nodeTime(HAND_BUILT_NODES)), ms)}.`,
		].join(' '),
		'',
		[
			'**Planning alone** (in the bench process: reading the rows, deciding which asset each',
			'stands for, the plan), 100,000 rows of which 50,000 carry one placeholder serial and 1,000',
			`one shared serial, against 100,000 assets: ${spread(figures.planMs, ms)} (target < 2 s); every`,
			'refusal names at most three items and a count.',
		].join(' '),
		'',
		[
			`**First import** (issue 41): the export's ${count(figures.firstImport.run.writes)} rows as new`,
			`assets (another External ID and serial) into a scope that holds none (\`externalId sw "${NEW_PREFIX}"\`):`,
			`the Sync node ${ms(figures.firstImport.run.run.nodeMs.Sync)}, ${count(figures.firstImport.run.reads)}`,
			`reads and ${count(figures.firstImport.run.writes)} writes, n8n's CPU ${ms(figures.firstImport.run.run.n8nCpuMs)}`,
			`(${cpuPerWrite(figures).toFixed(2)} ms per write, the whole run's CPU over its writes). The same`,
			`creates by a plain \`fetch\` loop in n8n's Node, 8 in flight, with the same token:`,
			`${ms(figures.firstImport.floorMs)}; the Sync over it: ${ratio(firstImportOverFloor(figures))} (target ≤ 1.5).`,
			`The same creates through n8n's own request helper (what a node's \`helpers.httpRequest\``,
			`calls, with the nodes' options), 8 in flight: ${ms(figures.firstImport.helperMs)}, over the`,
			`fetch floor ${ratio(figures.firstImport.helperMs / figures.firstImport.floorMs)}: the least any node`,
			`can take in this n8n; the Sync over it: ${ratio(figures.firstImport.run.run.nodeMs.Sync / figures.firstImport.helperMs)}.`,
			'One run of each.',
		].join(' '),
		'',
	];
	return lines;
}
