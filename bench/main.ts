/**
 * `npm run bench [-- --quick] [-- --cpu-prof]`: the package against what a user would otherwise
 * use (issues 8 and 26). Prints the results as markdown and writes them to bench/results.md
 * (`--quick`, a tenth of the size, writes bench/.runs/results-quick.md instead, so it never
 * replaces the full figures). The last lines of stdout are the key ratios. Benchmarks never fail
 * for being slow; they fail when a side computes a wrong answer or the harness breaks. n8n's log
 * and the hook's records of each run stay in bench/.runs/<full|quick>/.
 * `-- --only list-all,heap,queue,queue-variants,sync,contract-sync` runs those sections alone, for working on
 * one figure (bench/.runs/results-only.md; results.md untouched).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { n8nInstallDir, repoRoot, type WorkflowJson } from '../scripts/n8n';
import { createSandbox, type Sandbox } from '../sandbox/server';
import { THREE_CONDITIONS, threeConditionText } from './filters';
import { filterFigures, sandboxFigures } from './inProcess';
import { N8nBench, type RunResult } from './n8nBench';
import { millionFigures } from './million';
import { heapFigures } from './heap';
import { compareInQueueMode, inQueueMode, queueRatio, variantsInQueueMode } from './queue';
import { SandboxProcess } from './sandboxProcess';
import { contractSyncFigures, contractSyncLines, contractSyncSection } from './contractSync';
import { syncFigures, syncLines, syncSection } from './sync';
import { floorFigures } from './floor';
import { summarizeProfile } from './profile';
import {
	comparisonRows,
	heapSection,
	keyFigures,
	loadLine,
	queueSection,
	queueVariantSection,
	renderMillion,
	renderResults,
	type Comparison,
	type KeyFigures,
	type Machine,
	type Results,
	triggerSection,
} from './report';
import { resilienceLines } from './resilience';
import { mb, ms, pairRatio, ratio } from './stats';
import { triggerCost } from './trigger';
import { assetList, assetUpsert, httpList, httpUpsert } from './workflows';

/** A service far away: 40 ms before every answer, one 100 Mbit/s link. */
const REMOTE = { latencyMs: 40, bandwidthMbit: 100 };

/** When the bench started: its progress lines, its duration and `bench minutes` count from here. */
const benchStarted = performance.now();
/** A progress line with the minutes since the bench started, to see where its time goes. */
const progress = (message: string) =>
	process.stderr.write(
		`[bench ${((performance.now() - benchStarted) / 60_000).toFixed(1)} min] ${message}\n`,
	);

/** The 1-minute load average every 10 s while the bench runs (the machine is shared). */
const load: number[] = [];
const loadSampler = setInterval(() => load.push(os.loadavg()[0]), 10_000);
loadSampler.unref();

function machine(): Machine {
	const cpus = os.cpus();
	const n8nPackage = path.join(n8nInstallDir(), 'node_modules', 'n8n', 'package.json');
	return {
		cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
		cores: cpus.length,
		memoryBytes: os.totalmem(),
		os: `${os.type()} ${os.release()}`,
		node: process.version,
		n8n: (JSON.parse(readFileSync(n8nPackage, 'utf8')) as { version: string }).version,
		date: new Date().toISOString().slice(0, 10),
		load: [...load],
	};
}

/** Writable fields of `count` seeded assets spread over the table, under new external ids. */
function upsertItems(sandbox: Sandbox, count: number): Array<Record<string, unknown>> {
	const fields = [
		'deviceName',
		'status',
		'hardwareVendor',
		'assetType',
		'serialNumber',
		'assetTag',
		'purchasedDate',
		'warrantyExpirationDate',
		'lifespanExpirationDate',
		'notes',
		'netPrice',
		'netPriceCurrency',
		'platform',
		'osVersion',
		'isEncrypted',
	];
	const all = sandbox.store.assets.all();
	return Array.from({ length: count }, (_, i) => {
		const record = all[Math.floor((i * all.length) / count)];
		const item: Record<string, unknown> = { externalId: `BENCH-${String(i).padStart(6, '0')}` };
		for (const field of fields) if (record[field] !== undefined) item[field] = record[field];
		return item;
	});
}

/** One warm-up pair (token, JIT, first-use costs), then `pairs` measured pairs, A B A B. */
async function compare(
	bench: N8nBench,
	[key, title]: [string, string],
	[urlA, urlB]: [string, string],
	pairs: number,
	check: (run: RunResult) => void,
	body?: unknown,
	sandbox?: Sandbox,
): Promise<Pick<Comparison, 'key' | 'title' | 'a' | 'b'>> {
	const a: RunResult[] = [];
	const b: RunResult[] = [];
	for (let pair = 0; pair <= pairs; pair++) {
		const runA = await bench.run(urlA, body, `${key}-A-${pair}`, sandbox);
		const runB = await bench.run(urlB, body, `${key}-B-${pair}`, sandbox);
		check(runA);
		check(runB);
		if (pair > 0) {
			a.push(runA);
			b.push(runB);
		}
		progress(
			`${title} ${pair === 0 ? 'warm-up' : `pair ${pair}/${pairs}`}: A ${ms(runA.executionMs)} ` +
				`B ${ms(runB.executionMs)} (wall ${ms(runA.wallMs)} / ${ms(runB.wallMs)}, ` +
				`peak RSS ${mb(runA.peakRssBytes)} / ${mb(runB.peakRssBytes)})`,
		);
	}
	return { key, title, a, b };
}

function expectCount(what: string, expected: number) {
	return (run: RunResult) => {
		if (run.answer.count_id !== expected) {
			throw new Error(`${what}: expected ${expected} items, got ${JSON.stringify(run.answer)}`);
		}
	};
}

async function main() {
	const { values } = parseArgs({
		options: {
			quick: { type: 'boolean', default: false },
			// a CPU profile of n8n per run, in bench/.runs/<full|quick>/profiles/ (for diagnosis)
			'cpu-prof': { type: 'boolean', default: false },
			// only the million-record figures, written to bench/results-million.md
			million: { type: 'boolean', default: false },
			// with --million: another size, to see that n8n's peak memory does not grow with it
			records: { type: 'string', default: '1000000' },
			only: { type: 'string' },
		},
	});
	if (values.million) return await millionOnly(Number(values.records));
	if (values.only) return await sectionsOnly(values.only.split(','), values.quick);
	const quick = values.quick;
	const scale = quick ? 10 : 1;
	const records = 100_000 / scale;
	const upserts = 1000 / scale;
	// an ordinary poll's worth of changes, and a fleet sync of half the assets
	const changes = [1, 1000 / scale, 50_000 / scale];
	// the machine's noise comes in bursts of seconds: more pairs where a run takes seconds
	const listPairs = quick ? 5 : 7;
	const upsertPairs = 5;
	const remotePairs = 3;
	const workDir = path.join(repoRoot, 'bench', '.runs', quick ? 'quick' : 'full');
	rmSync(workDir, { recursive: true, force: true });
	mkdirSync(workDir, { recursive: true });

	progress(`seeding the sandbox with ${records} assets`);
	const sandbox = await createSandbox({ records, seed: 1 });
	const filterText = await threeConditionText();

	progress('in-process: filter module');
	const filter = filterFigures(sandbox, filterText, quick ? 200 : 2000);
	progress('the sandbox in a process of its own');
	const sandboxProcess = await SandboxProcess.start(records);
	const sandboxResults = await sandboxFigures(sandboxProcess, records, filterText, 60).finally(() =>
		sandboxProcess.stop(),
	);

	// the same data behind the network of a service far away
	const remote = await createSandbox({ records, seed: 1, network: REMOTE });

	progress('starting n8n');
	const comparisons: Comparison[] = [];
	const profiles: Results['profiles'] = [];
	const profileDir = values['cpu-prof'] ? path.join(workDir, 'profiles') : undefined;
	const bench = await N8nBench.start(sandbox, workDir, profileDir);
	try {
		const { credential } = bench;
		const deploy = async (a: WorkflowJson, b: WorkflowJson): Promise<[string, string]> => [
			await bench.deploy(a),
			await bench.deploy(b),
		];
		const listAll = await deploy(
			assetList('list-asset', credential),
			httpList('list-http', credential, sandbox.url),
		);
		const filtered = await deploy(
			assetList('filter-asset', credential, THREE_CONDITIONS),
			httpList('filter-http', credential, sandbox.url, filterText),
		);
		const upsert = await deploy(
			assetUpsert('upsert-asset', credential),
			httpUpsert('upsert-http', credential, sandbox.url),
		);
		const listing = { aNodes: ['Asset node'], bNodes: ['HTTP Request', 'Split Out'] };
		comparisons.push({
			...(await compare(
				bench,
				['list-all', `List all ${records.toLocaleString('en-US')} assets`],
				listAll,
				listPairs,
				expectCount('list all', records),
			)),
			...listing,
		});
		comparisons.push({
			...(await compare(
				bench,
				['filtered', 'Filtered list (three conditions)'],
				filtered,
				listPairs,
				(run) => {
					expectCount('filtered list', filter.matches)(run);
					if (run.filters.length !== 1 || run.filters[0] !== filterText) {
						throw new Error(`filtered list sent ${JSON.stringify(run.filters)}, not ${filterText}`);
					}
				},
			)),
			...listing,
		});
		comparisons.push({
			...(await compare(
				bench,
				['upserts', `${upserts.toLocaleString('en-US')} upserts (Create or Update / PUT per item)`],
				upsert,
				upsertPairs,
				expectCount('upserts', upserts),
				{ items: upsertItems(sandbox, upserts) },
			)),
			aNodes: ['Asset node'],
			bNodes: ['HTTP Request'],
		});
		progress('a remote service: 40 ms per request, 100 Mbit/s');
		const remoteCredential = await bench.addCredential(remote, 'Stockroom remote sandbox');
		const remoteList = await deploy(
			assetList('remote-list-asset', remoteCredential),
			httpList('remote-list-http', remoteCredential, remote.url),
		);
		comparisons.push({
			...(await compare(
				bench,
				['remote', `List all ${records.toLocaleString('en-US')} assets, remote service`],
				remoteList,
				remotePairs,
				expectCount('remote list all', records),
				undefined,
				remote,
			)),
			...listing,
		});

		progress('CPU profiles of one list-all run on each side');
		profiles.push(
			{
				side: 'A: Asset node',
				...summarizeProfile(await bench.profile(listAll[0], 'profile-list-asset')),
			},
			{
				side: 'B: HTTP Request node',
				...summarizeProfile(await bench.profile(listAll[1], 'profile-list-http')),
			},
		);
	} finally {
		await bench.stop();
		await remote.close();
	}

	progress('the floor: a plain fetch loop over the same pages');
	const floor = await floorFigures(sandbox, quick ? 3 : 5);

	progress('queue mode: the same workflows of both sides run by workers');
	// one n8n in queue mode for both (setting one up takes minutes)
	const { queue, queueVariants } = await inQueueMode(sandbox, workDir, async (session) => ({
		queue: await compareInQueueMode(
			session,
			sandbox,
			{ items: upsertItems(sandbox, upserts) },
			QUEUE_PAIRS,
			workDir,
			progress,
		),
		queueVariants: await variantsInQueueMode(session, sandbox, QUEUE_PAIRS, progress),
	})).finally(() => sandbox.close());

	progress('heap snapshots of a list-all per side');
	const heap = await heapFigures(records / 10, workDir, progress);

	progress('trigger cost');
	const polls = await triggerCost([records / 10, records], changes, records * 10);

	const million = await millionFigures(records * 10, progress);
	const resilience = await resilienceLines(progress);

	progress('sync: the Sync operation beside the hand-built workflow');
	const sync = await syncFigures(records, sideBySideSizes(quick), workDir, progress);

	progress('contract sync: a procurement export, one row per line item');
	const contractSync = await contractSyncFigures(CONTRACT_SYNC_SIZE / scale, workDir, progress);

	const results = {
		quick,
		machine: machine(),
		records,
		contracts: sandbox.store.contracts.size,
		pairs: { list: listPairs, upserts: upsertPairs, remote: remotePairs },
		remote: REMOTE,
		floor,
		profiles,
		durationMs: performance.now() - benchStarted,
		filterText,
		comparisons,
		polls,
		queue,
		queueVariants,
		heap,
		filter,
		sandbox: sandboxResults,
		million,
	};
	const jsonFile = path.join(repoRoot, 'bench', 'results.json');
	const previous =
		!quick && existsSync(jsonFile)
			? (JSON.parse(readFileSync(jsonFile, 'utf8')) as KeyFigures)
			: undefined;
	const figures = keyFigures(results);
	const markdown = [
		renderResults(results, previous),
		...syncSection(sync, results.machine),
		...contractSyncSection(contractSync, results.machine),
	].join('\n');
	const finalLines = [
		`list-all heap ratio (asset node / HTTP Request node): ${ratio(figures.listAllHeapRatio)}`,
		`queue list-all ratio (asset node / HTTP Request node, on a worker): ${ratio(figures.queueListAllRatio)}`,
		`remote list-all ratio (asset node / HTTP Request node): ${ratio(figures.remoteListAllRatio)}`,
		`list-all CPU ratio (asset node / HTTP Request node): ${ratio(figures.listAllCpuRatio)}`,
		`list-all ratio (asset node / HTTP Request node): ${ratio(figures.listAllRatio)}`,
		...syncLines(sync),
		...contractSyncLines(contractSync),
		...resilience,
		minutesLine(),
	].join('\n');
	const file = quick
		? path.join(repoRoot, 'bench', '.runs', 'results-quick.md')
		: path.join(repoRoot, 'bench', 'results.md');
	writeFileSync(file, `${markdown}\n${finalLines}\n`);
	if (!quick) writeFileSync(jsonFile, `${JSON.stringify(figures, null, '\t')}\n`);
	progress(`written to ${path.relative(repoRoot, file)}`);
	process.stdout.write(`${markdown}\n${finalLines}\n`);
}

/** Pairs of queue-mode runs per workflow (each list-all on a worker takes tens of seconds). */
const QUEUE_PAIRS = 2;

/**
 * Sizes at which the hand-built sync runs beside the Sync. Compare Datasets' time grows with the
 * square of the rows: one hand-built run at 100,000 took half an hour here (2 shared cores), so
 * it runs where it takes seconds, and its time at the full size is scaled from these two.
 */
const sideBySideSizes = (quick: boolean) => (quick ? [1_000, 2_000] : [5_000, 10_000]);

/** Contracts of Contract Sync's section (issue 34: 10,000 of 5 line items each). */
const CONTRACT_SYNC_SIZE = 10_000;

/** The bench's last line: its whole duration (issue 31: at most 30 minutes on these 2 cores). */
const minutesLine = () =>
	`bench minutes: ${((performance.now() - benchStarted) / 60_000).toFixed(1)}`;

/**
 * `--only list-all,heap,queue`: those sections alone, at the full size (or `--quick`'s), written
 * to bench/.runs/results-only.md with their final lines; results.md and results.json untouched.
 */
async function sectionsOnly(sections: string[], quick: boolean): Promise<void> {
	const known = ['list-all', 'heap', 'queue', 'queue-variants', 'sync', 'contract-sync', 'trigger'];
	const unknown = sections.filter((section) => !known.includes(section));
	if (unknown.length)
		throw new Error(`--only: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
	const records = quick ? 10_000 : 100_000;
	const workDir = path.join(repoRoot, 'bench', '.runs', 'only');
	rmSync(workDir, { recursive: true, force: true });
	mkdirSync(workDir, { recursive: true });
	const lines: string[] = [];
	const finalLines: string[] = [];
	const comparisons: Comparison[] = [];
	// the syncs seed sandboxes of their own (they write); the trigger seeds one per size
	const needsSandbox = sections.some(
		(section) => !['heap', 'sync', 'contract-sync', 'trigger'].includes(section),
	);
	if (needsSandbox) progress(`seeding the sandbox with ${records} assets`);
	const sandbox = needsSandbox ? await createSandbox({ records, seed: 1 }) : undefined;
	try {
		if (sandbox && sections.includes('list-all')) {
			const bench = await N8nBench.start(sandbox, workDir);
			try {
				const urls: [string, string] = [
					await bench.deploy(assetList('list-asset', bench.credential)),
					await bench.deploy(httpList('list-http', bench.credential, sandbox.url)),
				];
				comparisons.push({
					...(await compare(
						bench,
						['list-all', `List all ${records.toLocaleString('en-US')} assets`],
						urls,
						quick ? 5 : 11,
						expectCount('list all', records),
					)),
					aNodes: ['Asset node'],
					bNodes: ['HTTP Request', 'Split Out'],
				});
			} finally {
				await bench.stop();
			}
			const [listAll] = comparisons;
			lines.push(
				'| Scenario | Metric | A: Asset node | B: HTTP Request node | A / B |',
				'| --- | --- | --: | --: | --: |',
				...comparisonRows(listAll),
				'',
			);
			const pick = (runs: RunResult[], value: (run: RunResult) => number) => runs.map(value);
			finalLines.push(
				`list-all heap ratio (asset node / HTTP Request node): ${ratio(
					pairRatio(
						pick(listAll.a, (run) => run.heapAtEndBytes),
						pick(listAll.b, (run) => run.heapAtEndBytes),
					),
				)}`,
				`list-all ratio (asset node / HTTP Request node): ${ratio(
					pairRatio(
						pick(listAll.a, (run) => run.executionMs),
						pick(listAll.b, (run) => run.executionMs),
					),
				)}`,
			);
		}
		if (sections.includes('heap')) {
			lines.push(...heapSection({ heap: await heapFigures(records / 10, workDir, progress) }));
		}
		// both queue sections in one n8n in queue mode, as in the full bench (one takes minutes to set up)
		const inQueue =
			sandbox && (sections.includes('queue') || sections.includes('queue-variants'))
				? await inQueueMode(sandbox, workDir, async (session) => ({
						queue: sections.includes('queue')
							? await compareInQueueMode(
									session,
									sandbox,
									{ items: upsertItems(sandbox, quick ? 100 : 1000) },
									QUEUE_PAIRS,
									workDir,
									progress,
								)
							: undefined,
						variants: sections.includes('queue-variants')
							? await variantsInQueueMode(session, sandbox, QUEUE_PAIRS - 1, progress)
							: undefined,
					}))
				: undefined;
		if (inQueue?.queue) {
			lines.push(...queueSection({ queue: inQueue.queue, comparisons }));
			finalLines.push(
				`queue list-all ratio (asset node / HTTP Request node, on a worker): ${ratio(queueRatio(inQueue.queue.listAll))}`,
			);
		}
		if (sections.includes('trigger')) {
			progress('trigger cost');
			// the trigger section at the full size: one change and the sweep's first poll at 100k,
			// and the activation, idle, one-change and sweep polls once each at ten times that
			lines.push(...triggerSection(await triggerCost([records], [1], records * 10)));
			finalLines.push(...(await resilienceLines(progress)));
		}
		if (inQueue?.variants) lines.push(...queueVariantSection(inQueue.variants));
		if (sections.includes('sync')) {
			const sync = await syncFigures(records, sideBySideSizes(quick), workDir, progress);
			lines.push(...syncSection(sync, machine()));
			finalLines.push(...syncLines(sync));
		}
		if (sections.includes('contract-sync')) {
			const contractSync = await contractSyncFigures(
				quick ? CONTRACT_SYNC_SIZE / 10 : CONTRACT_SYNC_SIZE,
				workDir,
				progress,
			);
			lines.push(...contractSyncSection(contractSync, machine()));
			finalLines.push(...contractSyncLines(contractSync));
		}
	} finally {
		await sandbox?.close();
	}
	finalLines.push(minutesLine());
	const markdown = [
		`# Bench sections: ${sections.join(', ')}`,
		'',
		loadLine(machine()),
		'',
		...lines,
	].join('\n');
	writeFileSync(
		path.join(workDir, '..', 'results-only.md'),
		`${markdown}\n${finalLines.join('\n')}\n`,
	);
	process.stdout.write(`${markdown}\n${finalLines.join('\n')}\n`);
}

/** `npm run bench -- --million`: the million-record section and the trigger's cost at that size. */
async function millionOnly(records: number): Promise<void> {
	const million = await millionFigures(records, progress);
	progress('trigger cost at a million assets');
	const polls = await triggerCost([], [], records);
	const markdown = renderMillion(million, polls, machine());
	const file = records === 1_000_000 ? 'results-million.md' : `.runs/results-${records}.md`;
	writeFileSync(path.join(repoRoot, 'bench', file), `${markdown}\n`);
	process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(
		`[bench] failed: ${(error as Error).stack ?? String(error)}${(error as Error).cause ? `\ncaused by: ${String((error as Error).cause)}` : ''}\n`,
	);
	process.exit(1);
});
