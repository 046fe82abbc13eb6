import type { FloorFigures } from './floor';
import type { FilterFigures, SandboxFigures } from './inProcess';
import type { ProfileSummary } from './profile';
import type { RunResult } from './n8nBench';
import { count, mb, median, ms, pairRatio, ratio, spread, tableRow } from './stats';
import { HEAP_CAP_MB, type MillionFigures } from './million';
import type { HeapFigures } from './heap';
import {
	queueRatio,
	type QueueComparison,
	type QueueFigures,
	type QueueVariantFigures,
} from './queue';
import { REPETITIONS, type PollFigures } from './trigger';

export interface Machine {
	cpu: string;
	cores: number;
	memoryBytes: number;
	os: string;
	node: string;
	n8n: string;
	date: string;
	/** The 1-minute load average, sampled every 10 s during the run (other work shares the cores). */
	load: number[];
}

/** One side-by-side scenario: runs alternate A B A B, after one warm-up pair. */
export interface Comparison {
	/** Short name: list-all, filtered, upserts, remote. */
	key: string;
	title: string;
	a: RunResult[];
	b: RunResult[];
	/** The nodes doing the work on each side (the HTTP side adds Split Out where it needs it). */
	aNodes: string[];
	bNodes: string[];
}

export interface Results {
	quick: boolean;
	machine: Machine;
	records: number;
	contracts: number;
	pairs: { list: number; upserts: number; remote: number };
	/** The network profile of the remote service's sandbox. */
	remote: { latencyMs: number; bandwidthMbit: number };
	floor: FloorFigures;
	/** Where n8n's CPU time went in one list-all run of each side. */
	profiles: Array<ProfileSummary & { side: string }>;
	durationMs: number;
	filterText: string;
	comparisons: Comparison[];
	polls: PollFigures[];
	queue: QueueFigures;
	queueVariants: QueueVariantFigures;
	heap: HeapFigures;
	filter: FilterFigures;
	sandbox: SandboxFigures;
	million: MillionFigures;
}

/** How busy the shared machine was while the bench ran. */
export function loadLine({ load, cores }: Pick<Machine, 'load' | 'cores'>): string {
	if (!load.length) return '';
	return (
		`The machine's 1-minute load average during the run (sampled every 10 s, ${cores} cores):` +
		` median ${median(load).toFixed(1)}, ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}` +
		' (other sessions ran tests meanwhile; above the core count, runs wait for a core).'
	);
}

const row = tableRow;
const paragraph = (...parts: string[]) => parts.join(' ');

/** One value when every run agrees, else the range. */
function agreed(runs: RunResult[], pick: (run: RunResult) => number): string {
	const values = runs.map(pick);
	const [low, high] = [Math.min(...values), Math.max(...values)];
	return low === high ? count(low) : `${count(low)}–${count(high)}`;
}

export function comparisonRows({ title, a, b, aNodes, bNodes }: Comparison): string[] {
	const nodeTime = (nodes: string[]) => (run: RunResult) =>
		nodes.reduce((total, node) => total + (run.nodeMs[node] ?? 0), 0);
	const time = (label: string, pickA: (run: RunResult) => number, pickB = pickA, first = false) => {
		const [sa, sb] = [a.map(pickA), b.map(pickB)];
		// a ratio of nothing (no garbage collection at all in a run) says nothing
		const value = [...sa, ...sb].includes(0) ? '–' : ratio(pairRatio(sa, sb));
		return row(
			first ? `**${title}**` : '',
			label,
			`${ms(median(sa))} (${ms(Math.min(...sa))}–${ms(Math.max(...sa))})`,
			`${ms(median(sb))} (${ms(Math.min(...sb))}–${ms(Math.max(...sb))})`,
			first ? `**${value}**` : value,
		);
	};
	const both = (label: string, show: (runs: RunResult[]) => string) =>
		row('', label, show(a), show(b), '');
	const heap = (label: string, pick: (run: RunResult) => number) =>
		row(
			'',
			label,
			mb(median(a.map(pick))),
			mb(median(b.map(pick))),
			ratio(pairRatio(a.map(pick), b.map(pick))),
		);
	const limits = (runs: RunResult[]) =>
		[...new Set(runs.flatMap((run) => run.pageLimits))].join(', ') || '–';
	const peak = (runs: RunResult[]) => median(runs.map((run) => run.peakRssBytes));
	const base = (runs: RunResult[]) => median(runs.map((run) => run.startRssBytes));
	return [
		time('execution (startedAt → stoppedAt)', (run) => run.executionMs, undefined, true),
		time('wall time of the webhook call', (run) => run.wallMs),
		time(
			`node time: ${aNodes.join(' + ')} / ${bNodes.join(' + ')}`,
			nodeTime(aNodes),
			nodeTime(bNodes),
		),
		both(
			'requests per run: API (+ token)',
			(runs) =>
				`${agreed(runs, (run) => run.apiRequests)} (+${agreed(runs, (run) => run.tokenRequests)})`,
		),
		both('page size sent (`limit`)', limits),
		both('TCP connections opened; most open at once', (runs) => {
			const opened = agreed(runs, (run) => run.connections);
			return `${opened}; ${agreed(runs, (run) => run.maxOpenConnections)}`;
		}),
		both('bytes from the service', (runs) => mb(median(runs.map((run) => run.bytesSent)))),
		time('CPU time of the n8n process (all threads)', (run) => run.n8nCpuMs),
		time('garbage collection in n8n during the run', (run) => run.gcMs),
		time('CPU time of the sandbox (bench process)', (run) => run.sandboxCpuMs),
		heap(
			'V8 heap in use at the start (after a full collection, the last run released), median',
			(run) => run.heapAtStartBytes,
		),
		heap('V8 heap in use at the end of the execution, median', (run) => run.heapAtEndBytes),
		heap(
			'the same after a full collection (what the run keeps alive), median',
			(run) => run.liveHeapAtEndBytes,
		),
		row(
			'',
			'RSS of the n8n process: peak (at start), median',
			`${mb(peak(a))} (${mb(base(a))})`,
			`${mb(peak(b))} (${mb(base(b))})`,
			ratio(peak(a) / peak(b)),
		),
	];
}

const comparison = (results: Results, key: string): Comparison =>
	results.comparisons.find((candidate) => candidate.key === key)!;

const executionRatio = ({ a, b }: Comparison) =>
	pairRatio(
		a.map((run) => run.executionMs),
		b.map((run) => run.executionMs),
	);

/** The figures a regression would show in, kept in bench/results.json for the next run. */
export interface KeyFigures {
	date: string;
	listAllAsset: number;
	listAllHttp: number;
	listAllRatio: number;
	listAllCpuRatio: number;
	remoteListAllAsset: number;
	remoteListAllHttp: number;
	remoteListAllRatio: number;
	filteredRatio: number;
	upsertsAsset: number;
	upsertsRatio: number;
	floorMs: number;
	/** V8 heap in use at the end of list-all, Asset / HTTP (median of per-pair ratios). */
	listAllHeapRatio: number;
	listAllPeakRssRatio: number;
	/** List-all run by a worker in queue mode, wall time, Asset / HTTP. */
	queueListAllRatio: number;
}

export function keyFigures(results: Results): KeyFigures {
	const listAll = comparison(results, 'list-all');
	const remote = comparison(results, 'remote');
	const upserts = comparison(results, 'upserts');
	const execution = (runs: RunResult[]) => median(runs.map((run) => run.executionMs));
	return {
		date: results.machine.date,
		listAllAsset: execution(listAll.a),
		listAllHttp: execution(listAll.b),
		listAllRatio: executionRatio(listAll),
		listAllCpuRatio: pairRatio(
			listAll.a.map((run) => run.n8nCpuMs),
			listAll.b.map((run) => run.n8nCpuMs),
		),
		remoteListAllAsset: execution(remote.a),
		remoteListAllHttp: execution(remote.b),
		remoteListAllRatio: executionRatio(remote),
		filteredRatio: executionRatio(comparison(results, 'filtered')),
		upsertsAsset: execution(upserts.a),
		upsertsRatio: executionRatio(upserts),
		floorMs: results.floor.fetchLoopMs,
		listAllHeapRatio: pairRatio(
			listAll.a.map((run) => run.heapAtEndBytes),
			listAll.b.map((run) => run.heapAtEndBytes),
		),
		listAllPeakRssRatio: pairRatio(
			listAll.a.map((run) => run.peakRssBytes),
			listAll.b.map((run) => run.peakRssBytes),
		),
		queueListAllRatio: queueRatio(results.queue.listAll),
	};
}

const KEY_FIGURE_ROWS: Array<[keyof KeyFigures, string, (value: number) => string]> = [
	['listAllAsset', 'List all: Asset node execution', ms],
	['listAllHttp', 'List all: HTTP Request node execution', ms],
	['listAllRatio', 'List all: Asset / HTTP', ratio],
	['listAllCpuRatio', 'List all: n8n CPU time, Asset / HTTP', ratio],
	['remoteListAllAsset', 'List all, remote service: Asset node execution', ms],
	['remoteListAllHttp', 'List all, remote service: HTTP Request node execution', ms],
	['remoteListAllRatio', 'List all, remote service: Asset / HTTP', ratio],
	['filteredRatio', 'Filtered list: Asset / HTTP', ratio],
	['upsertsAsset', 'Upserts: Asset node execution', ms],
	['upsertsRatio', 'Upserts: Asset / HTTP', ratio],
	['floorMs', 'Floor: a plain fetch loop over every page', ms],
	['listAllHeapRatio', 'List all: V8 heap at the end, Asset / HTTP', ratio],
	['listAllPeakRssRatio', 'List all: peak RSS, Asset / HTTP', ratio],
	['queueListAllRatio', 'List all on a queue-mode worker: Asset / HTTP', ratio],
];

/** This run's key figures beside the previous full run's (bench/results.json). */
function previousSection(now: KeyFigures, previous: KeyFigures | undefined): string[] {
	// a figure the previous run did not measure is null in its JSON
	const shown = (value: number | null | undefined, format: (value: number) => string) =>
		typeof value !== 'number' || Number.isNaN(value) ? '–' : format(value);
	return [
		'## This run and the previous one',
		'',
		previous
			? `Key figures of this run beside those of the previous full run (${previous.date}), so a regression shows.`
			: 'No previous full run to compare with (`--quick` runs are never compared; a full run keeps its figures in bench/results.json for the next).',
		'',
		row('Figure', 'This run', 'Previous run'),
		row('---', '--:', '--:'),
		...KEY_FIGURE_ROWS.map(([key, label, format]) =>
			row(label, shown(now[key] as number, format), shown(previous?.[key] as number, format)),
		),
		'',
	];
}

/** The floor: what listing every asset costs with no n8n at all. */
function floorSection(results: Results): string[] {
	const { floor } = results;
	const listAll = comparison(results, 'list-all');
	const asset = median(listAll.a.map((run) => run.executionMs));
	return [
		'## The floor',
		'',
		paragraph(
			`A plain \`fetch\` loop in its own Node ${results.machine.node} process (the Node n8n runs on)`,
			`walks the same ${count(floor.records)} assets, asking for each next page as soon as the`,
			'`Link` header names it and parsing every page, with no n8n at all:',
			`${ms(floor.fetchLoopMs)} (median of ${floor.runs}), of which the sandbox spent`,
			`${ms(floor.sandboxCpuMs)} of CPU serving the pages on the same two cores. The Asset node's`,
			`list-all execution (${ms(asset)}) is ${ratio(asset / floor.fetchLoopMs)} times that floor; the`,
			`rest is n8n turning ${count(results.records)} records into items and keeping them (the floor`,
			'ran after the upserts, which added their assets).',
		),
		'',
	];
}

/** Self time by part of the stack and the busiest functions, per side. */
function profileSection(results: Results): string[] {
	if (!results.profiles.length) return [];
	const lines = [
		'## Where the time goes: CPU profile of n8n during one list-all run',
		'',
		paragraph(
			"V8's sampling profiler in the n8n process (started by the bench's external hook) for one",
			'extra run of each side after the measured pairs; self time, so every millisecond is counted',
			'once. The profiler slows the run a little; these runs are not part of the figures above.',
		),
		'',
	];
	for (const profile of results.profiles) {
		lines.push(
			`**${profile.side}**: ${ms(profile.totalMs)} profiled.`,
			'',
			row('Part of the stack', 'Self time', 'Share'),
			row('---', '--:', '--:'),
			...profile.parts
				.slice(0, 8)
				.map(({ part, ms: partMs }) =>
					row(part, ms(partMs), `${((100 * partMs) / profile.totalMs).toFixed(0)}%`),
				),
			'',
			row('Busiest function', 'Part', 'Self time'),
			row('---', '---', '--:'),
			...profile.functions.map(({ name, part, ms: fnMs }) =>
				row(`\`${name.replace(/\|/g, '\\|')}\``, part, ms(fnMs)),
			),
			'',
		);
	}
	return lines;
}

/** The list-all and upsert comparisons run by the workers of n8n in queue mode. */
export function queueSection(results: Pick<Results, 'queue' | 'comparisons'>): string[] {
	const { queue } = results;
	const single = (key: string) => {
		const found = results.comparisons.find((candidate) => candidate.key === key);
		return found ? ms(median(found.a.map((run) => run.wallMs))) : '–';
	};
	const rows = (title: string, comparison: QueueComparison, key: string) => [
		row(
			`**${title}**`,
			'wall time of the webhook call',
			spread(comparison.a.map((run) => run.wallMs)),
			spread(comparison.b.map((run) => run.wallMs)),
			`**${ratio(queueRatio(comparison))}**`,
		),
		row(
			'',
			'execution on the worker (startedAt → stoppedAt)',
			spread(comparison.a.map((run) => run.executionMs)),
			spread(comparison.b.map((run) => run.executionMs)),
			ratio(
				pairRatio(
					comparison.a.map((run) => run.executionMs),
					comparison.b.map((run) => run.executionMs),
				),
			),
		),
		row('', 'Asset node, one process (wall, from above)', single(key), '', ''),
		row(
			'',
			'workers used',
			[...new Set(comparison.a.map((run) => run.worker))].sort().join(', '),
			[...new Set(comparison.b.map((run) => run.worker))].sort().join(', '),
			'',
		),
	];
	const lines = [
		'## Queue mode: the same workflows run by a worker',
		'',
		paragraph(
			'n8n in queue mode (`EXECUTIONS_MODE=queue`, Redis and Postgres on loopback, one main and',
			'two `n8n worker` processes; executions not saved, as above): the list-all and upsert',
			"workflows of both sides, called through main's production webhook; main hands each run to",
			'a worker and answers when it is done. One warm-up pair, then',
			`${queue.listAll.a.length} pairs each, A B A B; A / B is the median of the per-pair ratios.`,
		),
		'',
		row('Workflow', 'Metric', 'A: Asset node', 'B: HTTP Request node', 'A / B'),
		row('---', '---', '--:', '--:', '--:'),
		...rows('List all', queue.listAll, 'list-all'),
		...rows('Upserts', queue.upserts, 'upserts'),
		'',
	];
	if (queue.profiles.length) {
		lines.push(
			paragraph(
				'Where the time goes: CPU profiles of main and of the worker that ran one more list-all',
				'of each side (self time by part of the stack; idle left out).',
			),
			'',
			row('Side', 'Process', 'Profiled', 'Busiest parts (self time)'),
			row('---', '---', '--:', '---'),
			...queue.profiles.map((profile) =>
				row(
					profile.side,
					profile.process,
					ms(profile.totalMs),
					profile.parts
						.filter(({ part }) => !part.startsWith('idle'))
						.slice(0, 5)
						.map(({ part, ms: partMs }) => `${part} ${ms(partMs)}`)
						.join('; '),
				),
			),
			'',
			row('Side', 'Process', 'Busiest functions (self time)'),
			row('---', '---', '---'),
			...queue.profiles.map((profile) =>
				row(
					profile.side,
					profile.process,
					profile.functions
						.filter(({ part }) => !part.startsWith('idle'))
						.slice(0, 6)
						.map(({ name, ms: fnMs }) => `\`${name.replace(/\|/g, '\\|')}\` ${ms(fnMs)}`)
						.join('; '),
				),
			),
			'',
		);
	}
	return lines;
}

/** Big lists on a worker the ways README suggests, against list-all as it is. */
export function queueVariantSection(
	variants: QueueVariantFigures,
	listAll?: QueueComparison,
): string[] {
	const [loop] = variants.pageLoop;
	return [
		'### Big lists on a worker: what helps',
		'',
		paragraph(
			'The same sandbox and the same n8n in queue mode (its main and two workers; executions not saved',
			`unless manual): ${variants.simplified.length} runs each after a warm-up, wall time from the call to`,
			'the answer (or, for the example, to the stored end of the execution).',
		),
		'',
		row('Workflow', 'Wall time, median (min–max)', 'Items in the run'),
		row('---', '--:', '---'),
		...(listAll
			? [
					row(
						'Get Many, Return All (list-all above, A)',
						spread(listAll.a.map((run) => run.wallMs)),
						'one per asset',
					),
				]
			: []),
		row(
			'Get Many, Return All, Simplify',
			spread(variants.simplified.map((run) => run.wallMs)),
			'one per asset, main fields only',
		),
		row(
			'Example *a million assets, one page per run*, from the editor',
			spread(variants.pageLoop.map((run) => run.wallMs)),
			loop
				? `${count(loop.rounds)} sub-workflow runs, ${count(loop.total)} assets (all but retired); the parent keeps the cursor and totals`
				: '',
		),
		'',
	];
}

/** Where the heap goes at the end of a list-all, from heap snapshots and allocation sampling. */
export function heapSection({ heap }: Pick<Results, 'heap'>): string[] {
	const { a, b } = heap;
	const size = (entry: { selfBytes: number; count: number }) =>
		`${mb(entry.selfBytes)} (${count(entry.count)})`;
	return [
		`## Where the heap goes: a list-all of ${count(heap.records)} assets, per side`,
		'',
		paragraph(
			'One run of each side (after a warm-up pair) ends with a heap snapshot of n8n taken by the',
			"bench's hook while the execution's items are still referenced (a smaller list than above: a",
			"snapshot of n8n holding 100,000 records is gigabytes to write and read), and with V8's",
			'sampling heap profiler on during the run, keeping what outlived the young generation',
			'whether it was collected later or not: what a run leaves for full collections.',
		),
		'',
		row('', 'A: Asset node', 'B: HTTP Request node'),
		row('---', '--:', '--:'),
		row('V8 heap in use at the end', mb(a.run.heapAtEndBytes), mb(b.run.heapAtEndBytes)),
		row('after a full collection', mb(a.run.liveHeapAtEndBytes), mb(b.run.liveHeapAtEndBytes)),
		row('heap snapshot: everything alive', mb(a.summary.totalBytes), mb(b.summary.totalBytes)),
		row(
			'allocated during the run, outliving the young generation',
			mb(a.allocations.totalBytes),
			mb(b.allocations.totalBytes),
		),
		'',
		'Alive at the end (snapshot), by constructor, largest differences first; self size (count):',
		'',
		row('Constructor', 'A', 'B', 'Main retainers in A (constructor .edge)'),
		row('---', '--:', '--:', '---'),
		...heap.differences.map((entry) =>
			row(
				`\`${entry.name}\``,
				size(entry.a),
				size(entry.b),
				(a.summary.retainers[entry.name] ?? [])
					.slice(0, 3)
					.map((retainer) => `${retainer.name} ${mb(retainer.selfBytes)}`)
					.join('; '),
			),
		),
		'',
		'Allocated during the run and outliving the young generation, by function:',
		'',
		row('Side', 'Function', 'Part', 'Bytes'),
		row('---', '---', '---', '--:'),
		...(
			[
				['A', a],
				['B', b],
			] as const
		).flatMap(([side, { allocations }]) =>
			allocations.functions
				.slice(0, 6)
				.map(({ name, part, bytes }) => row(side, `\`${name}\``, part, mb(bytes))),
		),
		'',
	];
}

/** `npm run bench -- --million` on its own: the million-record section and the trigger's cost. */
export function renderMillion(
	million: MillionFigures,
	polls: PollFigures[],
	machine: Machine,
): string {
	return [
		'# Benchmarks: a million records',
		'',
		`${machine.date}, ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, n8n ${machine.n8n}.`,
		'',
		...millionSection({ million }),
		'## Trigger cost per poll at this size (activation and an idle poll, once each)',
		'',
		...pollRows(polls),
		...triggerLines(polls),
	].join('\n');
}

/** The trigger section alone (`--only trigger`). */
export function triggerSection(polls: PollFigures[]): string[] {
	return [
		'## Trigger cost per poll (n8n-core PollContext, in-process)',
		'',
		...pollRows(polls),
		...triggerLines(polls),
	];
}

/** The figures issue 25 names, as lines a reader (or a script) can find. */
function triggerLines(polls: PollFigures[]): string[] {
	const synced = polls.filter((poll) => poll.event === 'assetSynced');
	const at = (records: number, changes: PollFigures['changes']) =>
		synced.find((poll) => poll.records === records && poll.changes === changes);
	const lines: string[] = [];
	for (const [records, label] of [
		[100_000, '100k'],
		[1_000_000, '1M'],
	] as const) {
		const state = at(records, 0);
		const one = at(records, 1);
		if (state)
			lines.push(`trigger state at ${label} assets (MB): ${(state.stateBytes / 1e6).toFixed(2)}`);
		if (one)
			lines.push(
				`trigger poll with one change at ${label} assets, CPU (ms): ${Math.round(one.cpuMs)}`,
			);
		const sweep = at(records, 'sweep');
		if (sweep)
			lines.push(
				`trigger sweep's first poll at ${label} assets, CPU (ms): ${Math.round(sweep.cpuMs)}, state change (bytes): ${sweep.stateChangedBytes}`,
			);
	}
	const idle = synced.filter((poll) => poll.changes === 0);
	if (idle.length)
		lines.push(
			`trigger idle poll state change (bytes): ${Math.max(...idle.map((poll) => poll.stateChangedBytes))}`,
		);
	return lines.length ? ['```', ...lines, '```', ''] : [];
}

function pollRows(polls: PollFigures[]): string[] {
	return [
		row('Event', 'Assets', 'Changes', 'API requests', 'Bytes', 'Emitted', 'Poll time', 'State'),
		row('---', '--:', '--:', '--:', '--:', '--:', '--:', '--:'),
		...polls.map((poll) =>
			row(
				poll.event,
				count(poll.records),
				typeof poll.changes === 'string' ? poll.changes : count(poll.changes),
				count(poll.apiRequests),
				mb(poll.bytes),
				count(poll.emitted),
				ms(poll.ms),
				mb(poll.stateBytes),
			),
		),
		'',
	];
}

/** The example "a million assets, one page per run" from start to end, and the sandbox serving it. */
function millionSection({ million }: Pick<Results, 'million'>): string[] {
	const { sandbox, n8n } = million;
	return [
		`## ${count(million.records)} records, one page per run`,
		'',
		paragraph(
			'The example workflow *a million assets, one page per run* (Get Many, One Item per Page,',
			'Start From; one sub-workflow run per page of 1,000, whose successful runs are not saved),',
			'run once from the editor against a sandbox process seeded with',
			`${count(million.records)} assets, with n8n's heap capped at ${HEAP_CAP_MB} MB`,
			'(`--max-old-space-size`): n8n would crash if the run held the records. Its memory: resident',
			'set when the run started and its peak during the run (VmHWM of the n8n process).',
		),
		'',
		row('What', 'Figure'),
		row('---', '--:'),
		row('n8n: whole run (start → end)', ms(n8n.executionMs)),
		row(
			'n8n: rounds (pages) / assets handled (all but retired)',
			`${count(n8n.rounds)} / ${count(n8n.total)}`,
		),
		row(
			'n8n: resident memory at start → peak',
			`${mb(n8n.startRssBytes)} → ${mb(n8n.peakRssBytes)}`,
		),
		row('sandbox: start with seeding', ms(sandbox.startMs)),
		row(
			'sandbox: every page with a plain fetch loop',
			`${ms(sandbox.walkMs)} (${count(sandbox.pages)} pages)`,
		),
		row('sandbox: peak resident memory', mb(sandbox.peakRssBytes)),
		'',
	];
}

export function renderResults(results: Results, previous?: KeyFigures): string {
	const { machine, filter, sandbox } = results;
	const scale = results.quick ? ' (`--quick`: a tenth of the size)' : '';
	const { list, upserts } = results.pairs;
	const lines = [
		'# Benchmarks',
		'',
		paragraph(
			`\`npm run bench\`${scale}, ${machine.date}: ${machine.cpu}, ${machine.cores} cores,`,
			`${mb(machine.memoryBytes)} RAM, ${machine.os}; Node ${machine.node}, n8n ${machine.n8n}.`,
			`Whole run ${ms(results.durationMs)}.`,
			loadLine(machine),
		),
		'',
		paragraph(
			`Sandbox seeded with ${count(results.records)} assets`,
			`and ${count(results.contracts)} contracts. The machine is shared and noisy:`,
			'times are medians (min–max) and A / B is the median of the per-pair ratios',
			'(below 1: the Asset node is faster, or uses less).',
		),
		'',
		'## In real n8n: Asset node (A) vs HTTP Request node (B)',
		'',
		paragraph(
			'One long-lived `n8n start` with this package; each workflow is a production Webhook →',
			'the node(s) → Summarize (count), called over HTTP and answering when the last node has',
			'run. Executions are not saved (`EXECUTIONS_DATA_SAVE_ON_SUCCESS=none`); startedAt,',
			'stoppedAt and node times come from the run data through an n8n external hook.',
			`Per scenario one warm-up pair, then ${list} pairs (upserts: ${upserts}) alternating`,
			'A B A B, with a full garbage collection in n8n and a reset of its peak RSS (VmHWM)',
			'before every run. Both sides use the same `stockroomOAuth2Api` credential (B: predefined',
			'credential type). B lists with its built-in pagination (next URL',
			'`{{ $response.body.next }}`, complete when `{{ !$response.body.next }}`, `limit=1000`)',
			'and Split Out on `results`; B upserts with one PUT per item (JSON body `{{ $json }}`),',
			'A with Create or Update, Use Input Item JSON.',
		),
		'',
		paragraph(
			'Filtered list: three builder conditions (all must match), sent as',
			`\`${results.filterText}\`; B sends the same text as its \`filter\` query parameter.`,
		),
		'',
		row('Scenario', 'Metric', 'A: Asset node', 'B: HTTP Request node', 'A / B'),
		row('---', '---', '--:', '--:', '--:'),
		...results.comparisons.flatMap(comparisonRows),
		'',
		paragraph(
			`Remote service: the same ${count(results.records)} assets from a second sandbox that waits`,
			`${results.remote.latencyMs} ms before every answer and sends all answers over one`,
			`${results.remote.bandwidthMbit} Mbit/s link (gzip when asked, as the service does);`,
			`${results.pairs.remote} pairs.`,
		),
		'',
		...floorSection(results),
		...profileSection(results),
		...previousSection(keyFigures(results), previous),
		...heapSection(results),
		...queueSection(results),
		...queueVariantSection(results.queueVariants, results.queue.listAll),
		...millionSection(results),
		'## Trigger cost per poll (n8n-core PollContext, in-process)',
		'',
		paragraph(
			'The activation poll ("from now on"; Asset Synced reads every asset once to learn its',
			'value), then after activation one poll with no changes and one after changes to assets',
			'spread over the whole table (the service stamps each write). API requests and response',
			'bytes as the sandbox counted them (the token is fetched once, at activation). Poll time:',
			`median of ${REPETITIONS}, each from a fresh activation (at the largest size: activation and an idle poll,`,
			'once each). State: the static data n8n stores, as JSON.',
		),
		'',
		...pollRows(results.polls),
		...triggerLines(results.polls),
		'## Filter module and sandbox (no n8n)',
		'',
		paragraph(
			'The filter module in the bench process; the sandbox as `npm run sandbox -- --records',
			`${results.records}\` in a process of its own, over HTTP, so its memory is its own.`,
		),
		'',
		row('Measurement', 'Result', 'Target'),
		row('---', '--:', '---'),
		row(
			`Filter: parse + validate a ${count(filter.expressionLength)}-character expression`,
			`${ms(filter.parseValidateMs)} per operation ` +
				`(median of 20 batches, ${count(filter.iterations)} operations)`,
			'well under 1 ms',
		),
		row(
			`Filter: evaluate the three-clause filter over ${count(filter.evaluatedRecords)} records`,
			`${ms(filter.evaluateMs)} (median of 7; ${count(filter.matches)} match)`,
			'< 100 ms at 100,000',
		),
		row(
			`Sandbox: a filtered page of 1,000 at ${count(sandbox.records)} assets`,
			`p50 ${ms(sandbox.pageP50Ms)}, p95 ${ms(sandbox.pageP95Ms)} (${sandbox.pageSamples} pages)`,
			'p50 < 50 ms',
		),
		row(
			`Sandbox: walk all ${count(sandbox.walkRecords)} assets through \`next\``,
			`${ms(sandbox.walkMs)} (median of 3; ${sandbox.walkPages} pages of 1,000)`,
			'< 5 s at 100,000',
		),
		row(
			'Sandbox: start (seeding included); peak RSS of its process after all of the above',
			`${ms(sandbox.startMs)}; ${mb(sandbox.peakRssBytes)}`,
			'memory < 500 MB',
		),
		'',
	];
	return lines.join('\n');
}
