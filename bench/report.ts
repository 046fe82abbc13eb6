import type { FilterFigures, SandboxFigures } from './inProcess';
import type { RunResult } from './n8nBench';
import { count, mb, median, ms, pairRatio, ratio } from './stats';
import type { PollFigures } from './trigger';

export interface Machine {
	cpu: string;
	cores: number;
	memoryBytes: number;
	os: string;
	node: string;
	n8n: string;
	date: string;
}

/** One side-by-side scenario: runs alternate A B A B, after one warm-up pair. */
export interface Comparison {
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
	pairs: { list: number; upserts: number };
	durationMs: number;
	filterText: string;
	comparisons: Comparison[];
	polls: PollFigures[];
	filter: FilterFigures;
	sandbox: SandboxFigures;
}

const row = (...cells: string[]) => `| ${cells.join(' | ')} |`;
const paragraph = (...parts: string[]) => parts.join(' ');

/** One value when every run agrees, else the range. */
function agreed(runs: RunResult[], pick: (run: RunResult) => number): string {
	const values = runs.map(pick);
	const [low, high] = [Math.min(...values), Math.max(...values)];
	return low === high ? count(low) : `${count(low)}–${count(high)}`;
}

function comparisonRows({ title, a, b, aNodes, bNodes }: Comparison): string[] {
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
		both('V8 heap in use at the end of the execution, median', (runs) =>
			mb(median(runs.map((run) => run.heapAtEndBytes))),
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

export const listAllRatio = (results: Results): number => {
	const [listAll] = results.comparisons;
	return pairRatio(
		listAll.a.map((run) => run.executionMs),
		listAll.b.map((run) => run.executionMs),
	);
};

export function renderResults(results: Results): string {
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
		'## Trigger cost per poll (n8n-core PollContext, in-process)',
		'',
		paragraph(
			'The activation poll ("from now on"; Asset Synced reads every asset once to learn its',
			'value), then after activation one poll with no changes and one after changes to assets',
			'spread over the whole table (the service stamps each write). API requests and response',
			'bytes as the sandbox counted them (the token is fetched once, at activation). Poll time:',
			'median of 5, each from a fresh activation. State: the static data n8n stores, as JSON.',
		),
		'',
		row('Event', 'Assets', 'Changes', 'API requests', 'Bytes', 'Emitted', 'Poll time', 'State'),
		row('---', '--:', '--:', '--:', '--:', '--:', '--:', '--:'),
		...results.polls.map((poll) =>
			row(
				poll.event,
				count(poll.records),
				poll.changes === 'activation' ? 'activation' : count(poll.changes),
				count(poll.apiRequests),
				mb(poll.bytes),
				count(poll.emitted),
				ms(poll.ms),
				mb(poll.stateBytes),
			),
		),
		'',
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
