import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { sandboxCredentialInput } from '../sandbox/credential';
import type { Sandbox } from '../sandbox/server';
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	HarnessError,
	importMissingExamples,
	waitFor,
	type N8nHome,
	type WorkflowJson,
} from '../scripts/n8n';
import type { GcRecord, HookRecord } from './n8nHooks';
import { summarizeProfile, type ProfileSummary } from './profile';
import { median, ms, pairRatio } from './stats';
import { assetList, assetListSimplified, assetUpsert, httpList, httpUpsert } from './workflows';

/** One workflow run by a worker of n8n in queue mode, called through main's production webhook. */
export interface QueueRunFigure {
	wallMs: number;
	/** The worker whose log shows the execution. */
	worker: string;
	/** startedAt → stoppedAt on the worker (its external hook's record). */
	executionMs: number;
}

/** One workflow of each side, alternating A B A B after a warm-up pair. */
export interface QueueComparison {
	a: QueueRunFigure[];
	b: QueueRunFigure[];
}

export interface QueueFigures {
	listAll: QueueComparison;
	upserts: QueueComparison;
	/** Where the worker and main spent their CPU time during one list-all run of each side. */
	profiles: Array<{ side: string; process: string } & ProfileSummary>;
}

/** Saves and publishes a workflow on main; returns its production webhook URL. */
async function deploy(home: N8nHome, workflow: WorkflowJson): Promise<string> {
	const { rest, url } = home.queue!.main!;
	const saved = await rest.request<{ id: string; versionId: string }>(
		'POST',
		'/rest/workflows',
		workflow,
	);
	await rest.request('POST', `/rest/workflows/${saved.id}/activate`, {
		versionId: saved.versionId,
	});
	const trigger = workflow.nodes.find(
		(node) => (node as { type: string }).type === 'n8n-nodes-base.webhook',
	) as { parameters: { path: string } };
	const webhookPath = trigger.parameters.path;
	await waitFor(
		`n8n to register the webhook ${webhookPath}`,
		() =>
			home.queue!.services.query(
				`SELECT 1 FROM webhook_entity WHERE "webhookPath" = '${webhookPath}' AND method = 'POST'`,
			).length
				? true
				: undefined,
		30_000,
		100,
	);
	return `${url}/webhook/${webhookPath}`;
}

/** The bench hook's log, shared by main and the workers (each appends whole lines). */
class HookLog {
	private seen = 0;
	constructor(readonly file: string) {
		writeFileSync(file, '');
	}

	/** The next line that matches, waiting for it. */
	async next<T extends object>(matches: (line: object) => line is T): Promise<T> {
		return await waitFor(
			`n8n's bench hook to write to ${this.file}`,
			() => {
				const lines = readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
				while (this.seen < lines.length) {
					const line = JSON.parse(lines[this.seen++]) as object;
					if (matches(line)) return line;
				}
				return undefined;
			},
			300_000,
			20,
		);
	}
}

async function runOnWorker(
	home: N8nHome,
	log: HookLog,
	webhookUrl: string,
	expectedCount: number,
	body: unknown = {},
): Promise<QueueRunFigure> {
	// executions are not saved (as in the single-process bench): the workers' logs say who ran it
	const startedBy = () =>
		home.queue!.workers.map((worker) => ({ worker, ids: worker.startedExecutions() }));
	const before = startedBy();
	const started = performance.now();
	const response = await fetch(webhookUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const answer = (await response.json()) as { count_id?: number };
	const wallMs = performance.now() - started;
	if (!response.ok || answer.count_id !== expectedCount) {
		throw new HarnessError(`${webhookUrl}: ${response.status} ${JSON.stringify(answer)}`);
	}
	const [ranOn, executionId] = await waitFor(
		"the worker's log of the execution",
		() => {
			for (const { worker } of startedBy()) {
				const then = before.find((entry) => entry.worker === worker)?.ids ?? [];
				const id = worker.startedExecutions().find((started) => !then.includes(started));
				if (id) return [worker.name, id] as const;
			}
			return undefined;
		},
		30_000,
		100,
	);
	// main's hook may report the same execution too: either record has its times
	const record = await log.next(
		(line): line is HookRecord =>
			'executionId' in line && (line as HookRecord).executionId === executionId,
	);
	if (record.status !== 'success') {
		throw new HarnessError(`execution ${record.executionId} ${record.status}: ${record.error}`);
	}
	const executionMs = Date.parse(record.stoppedAt ?? '') - Date.parse(record.startedAt);
	return { wallMs, worker: ranOn, executionMs };
}

/** n8n in queue mode as the bench runs it, with main started. */
interface QueueSession {
	home: N8nHome;
	log: HookLog;
	main: Awaited<ReturnType<N8nHome['start']>>;
}

/**
 * n8n in queue mode (Redis, Postgres, a main and two workers, the bench's external hook in each),
 * the examples and their credential imported, for the length of `use`. Setting it up takes about
 * two minutes here (Postgres' migrations): the comparison and the variants share one.
 */
export async function inQueueMode<T>(
	sandbox: Sandbox,
	workDir: string,
	use: (session: QueueSession) => Promise<T>,
): Promise<T> {
	const log = new HookLog(path.join(workDir, 'queue-executions.jsonl'));
	const home = await createN8nHome({
		queue: true,
		env: {
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
			// the page-loop example is started as the editor does: a manual execution, kept
			EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
			GENERIC_TIMEZONE: 'UTC',
			EXTERNAL_HOOK_FILES: path.join(__dirname, 'n8nHooks.js'),
			STOCKROOM_BENCH_LOG: log.file,
		},
	});
	try {
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await importMissingExamples(home);
		return await use({ home, log, main: await home.start() });
	} finally {
		await home.dispose();
	}
}

/**
 * The list-all and upsert workflows of the single-process comparison, both sides, run by the
 * workers of n8n in queue mode: one warm-up pair, then `runs` pairs each, A B A B. Then one
 * list-all run per side with the CPU profiler on in main and in both workers.
 */
export async function compareInQueueMode(
	{ home, log, main }: QueueSession,
	sandbox: Sandbox,
	upsertBody: { items: unknown[] },
	runs: number,
	workDir: string,
	progress: (message: string) => void,
): Promise<QueueFigures> {
	const credential = EXAMPLE_CREDENTIAL;
	const list = [
		await deploy(home, assetList('queue-list-asset', credential)),
		await deploy(home, httpList('queue-list-http', credential, sandbox.url)),
	];
	const upsert = [
		await deploy(home, assetUpsert('queue-upsert-asset', credential)),
		await deploy(home, httpUpsert('queue-upsert-http', credential, sandbox.url)),
	];
	// the upserts add their assets to the list: it is counted at each run
	const records = () => sandbox.store.assets.size;
	const figures: QueueFigures = {
		listAll: { a: [], b: [] },
		upserts: { a: [], b: [] },
		profiles: [],
	};
	for (let run = 0; run <= runs; run++) {
		const listA = await runOnWorker(home, log, list[0], records());
		const listB = await runOnWorker(home, log, list[1], records());
		const count = upsertBody.items.length;
		const upsertA = await runOnWorker(home, log, upsert[0], count, upsertBody);
		const upsertB = await runOnWorker(home, log, upsert[1], count, upsertBody);
		progress(
			`queue ${run === 0 ? 'warm-up' : `pair ${run}/${runs}`}: list A ${ms(listA.wallMs)} B ${ms(listB.wallMs)}, upserts A ${ms(upsertA.wallMs)} B ${ms(upsertB.wallMs)}`,
		);
		if (run > 0) {
			figures.listAll.a.push(listA);
			figures.listAll.b.push(listB);
			figures.upserts.a.push(upsertA);
			figures.upserts.b.push(upsertB);
		}
	}
	const processes = [
		{ name: 'main', pid: main.pid },
		...home.queue!.workers.map((worker) => ({ name: worker.name, pid: worker.pid })),
	];
	// SIGUSR2 to each process in turn: a full collection, the profile of the run before written
	// (when profiling), and the profiler on when the request file is there
	const signalAll = async (profileNext: boolean, side: string) => {
		const written: Record<string, string> = {};
		for (const { name, pid } of processes) {
			if (profileNext) writeFileSync(`${log.file}.profile-next`, '');
			process.kill(pid, 'SIGUSR2');
			const record = await log.next((line): line is GcRecord => 'gc' in line);
			if (record.error) throw new HarnessError(`n8n's bench hook failed: ${record.error}`);
			// each process numbers its profiles from 1 in the same folder: move it before the next
			if (record.profile) {
				written[name] = path.join(workDir, `queue-${side}-${name}.cpuprofile`);
				renameSync(record.profile, written[name]);
			}
		}
		return written;
	};
	for (const [side, url] of [
		['A: Asset node', list[0]],
		['B: HTTP Request node', list[1]],
	] as const) {
		await signalAll(true, side[0]);
		const ran = await runOnWorker(home, log, url, records());
		const written = await signalAll(false, side[0]);
		for (const { name } of processes) {
			if (name !== 'main' && name !== ran.worker) continue;
			const file = written[name];
			if (!file || !existsSync(file)) throw new HarnessError(`no CPU profile from ${name}`);
			figures.profiles.push({
				side,
				process: name === 'main' ? 'main' : 'worker',
				...summarizeProfile(file),
			});
		}
	}
	return figures;
}

export const medianWall = (runs: QueueRunFigure[]) => median(runs.map((run) => run.wallMs));

/** Median of the per-pair ratios of wall times, A / B. */
export const queueRatio = ({ a, b }: QueueComparison) =>
	pairRatio(
		a.map((run) => run.wallMs),
		b.map((run) => run.wallMs),
	);

/** What a user can do about a big list on a worker, each way measured. */
export interface QueueVariantFigures {
	/** Get Many with Simplify (list-all's workflow otherwise): wall time per run. */
	simplified: QueueRunFigure[];
	/**
	 * The example "a million assets, one page per run" (a sub-workflow run per page of 1,000 whose
	 * successful runs are not saved), run from the editor: main hands it to a worker.
	 */
	pageLoop: Array<{ wallMs: number; executionMs: number; rounds: number; total: number }>;
}

/**
 * Big lists on a worker, the ways README suggests: Simplify, and one page per sub-workflow run
 * (the example, started as the editor does; in queue mode main hands it to a worker, as n8n 3
 * always will). `runs` runs each after a warm-up.
 */
export async function variantsInQueueMode(
	{ home, log, main }: QueueSession,
	sandbox: Sandbox,
	runs: number,
	progress: (message: string) => void,
): Promise<QueueVariantFigures> {
	const simplified = await deploy(
		home,
		assetListSimplified('queue-list-simple', EXAMPLE_CREDENTIAL),
	);
	const example = exampleWorkflows().find(({ file }) => file === '5-million-assets.json')!;
	const figures: QueueVariantFigures = { simplified: [], pageLoop: [] };
	for (let run = 0; run <= runs; run++) {
		const simple = await runOnWorker(home, log, simplified, sandbox.store.assets.size);
		const started = performance.now();
		const id = await main.rest.runWorkflow(
			example.workflow.id!,
			'When clicking ‘Execute workflow’',
		);
		const loop = await home.waitForExecution(id, 30 * 60_000);
		const wallMs = performance.now() - started;
		const [done] = loop.outputs.Done ?? [];
		if (loop.error || !done || !loop.worker) {
			throw new HarnessError(
				`the page loop did not finish on a worker: ${JSON.stringify(loop.error ?? loop.status)}`,
			);
		}
		const pages = {
			wallMs,
			executionMs: Date.parse(loop.stoppedAt!) - Date.parse(loop.startedAt!),
			rounds: Number(done.pages),
			total: Number(done.total),
		};
		progress(
			`queue variants ${run === 0 ? 'warm-up' : `run ${run}/${runs}`}: Simplify ${ms(simple.wallMs)}, one page per run ${ms(wallMs)} (${pages.rounds} rounds)`,
		);
		if (run > 0) {
			figures.simplified.push(simple);
			figures.pageLoop.push(pages);
		}
	}
	return figures;
}
