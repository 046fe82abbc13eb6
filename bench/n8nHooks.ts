/**
 * An n8n external hooks file (EXTERNAL_HOOK_FILES), loaded by the benchmarked `n8n start`.
 * With EXECUTIONS_DATA_SAVE_ON_SUCCESS=none n8n deletes a finished execution, so its timings are
 * taken here instead, from the same run data n8n would have stored (startedAt, stoppedAt, each
 * node's startTime and executionTime), and appended as one JSON line to STOCKROOM_BENCH_LOG.
 * SIGUSR2 marks the start of the next run: a full garbage collection, so each run starts from a
 * clean heap. The run after it is CPU-profiled when the bench asks (a file `<log>.profile-next`)
 * or, with STOCKROOM_BENCH_PROFILE_DIR, every run is; the next SIGUSR2 writes the profile. When
 * the bench asks for it (a file `<log>.snapshot-next`, naming the snapshot's path), the run's end
 * writes a heap snapshot of n8n while the execution's items are still referenced.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';

interface TaskData {
	startTime: number;
	executionTime: number;
	data?: { main?: Array<unknown[] | null> };
}

interface FullRunData {
	status: string;
	mode: string;
	startedAt: Date;
	stoppedAt?: Date;
	data: { resultData: { runData: Record<string, TaskData[]>; error?: { message?: string } } };
}

/** One finished execution, as the bench reads it back. */
export interface HookRecord {
	executionId: string;
	workflowId: string;
	status: string;
	mode: string;
	startedAt: string;
	stoppedAt?: string;
	error?: string;
	/** V8 heap in use when the execution finished, with all its items still referenced. */
	heapUsed: number;
	/**
	 * The same after a full garbage collection: what the execution keeps alive (with
	 * STOCKROOM_BENCH_LIVE_HEAP=1; the collection delays what follows the run, e.g. in a worker).
	 */
	liveHeapUsed?: number;
	/** The heap snapshot written at the end of this run, when the bench asked for one. */
	snapshot?: string;
	/** Time spent in garbage collection since the run started. */
	gcMs: number;
	nodes: Record<string, { startTime: number; executionTime: number; items: number }>;
}

/** The answer to SIGUSR2. */
export interface GcRecord {
	gc: number;
	heapUsed: number;
	/** The CPU profile of the run before, when profiling. */
	profile?: string;
	error?: string;
}

const logFile = process.env.STOCKROOM_BENCH_LOG;
const profileDir = process.env.STOCKROOM_BENCH_PROFILE_DIR;
const liveHeap = process.env.STOCKROOM_BENCH_LIVE_HEAP === '1';
const append = (line: object) => {
	if (logFile) appendFileSync(logFile, `${JSON.stringify(line)}\n`);
};

// the documented way to reach V8's gc() in a running process
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const session = new Session();
session.connect();
const post = (method: string, params?: object) =>
	new Promise<unknown>((resolve, reject) =>
		session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
	);
let profiles = 0;
let profiling = false;
/** Profile the next run only. */
const profileRequest = logFile && `${logFile}.profile-next`;
/** Snapshot the heap at the end of the next run only; the file holds the snapshot's path. */
const snapshotRequest = logFile && `${logFile}.snapshot-next`;
let snapshotPath: string | undefined;

let gcMs = 0;
let runStart = 0;
// entries arrive late: count those that started in this run (not the forced collection before it)
const addGc = (entries: PerformanceEntry[]) => {
	for (const entry of entries) if (entry.startTime >= runStart) gcMs += entry.duration;
};
const gcObserver = new PerformanceObserver((list) => addGc(list.getEntries()));
gcObserver.observe({ entryTypes: ['gc'] });

async function nextRun(): Promise<void> {
	let profile: string | undefined;
	if (profiling) {
		const result = (await post('Profiler.stop')) as { profile: unknown };
		profile = path.join(profileDir ?? path.dirname(logFile!), `${++profiles}.cpuprofile`);
		writeFileSync(profile, JSON.stringify(result.profile));
		profiling = false;
	}
	gc();
	runStart = performance.now();
	gcMs = 0;
	const requested = profileRequest !== undefined && existsSync(profileRequest);
	if (requested) rmSync(profileRequest);
	snapshotPath = undefined;
	if (snapshotRequest !== undefined && existsSync(snapshotRequest)) {
		snapshotPath = readFileSync(snapshotRequest, 'utf8');
		rmSync(snapshotRequest);
		// what the run allocates that outlives the young generation, garbage or not (a snapshot
		// only shows what is still alive)
		await post('HeapProfiler.enable');
		await post('HeapProfiler.startSampling', {
			samplingInterval: 16384,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: false,
		});
	}
	if (profileDir !== undefined || requested) {
		await post('Profiler.enable');
		await post('Profiler.start');
		profiling = true;
	}
	const record: GcRecord = { gc: Date.now(), heapUsed: process.memoryUsage().heapUsed, profile };
	append(record);
}

process.on('SIGUSR2', () => {
	nextRun().catch((error: unknown) => {
		const record: GcRecord = { gc: Date.now(), heapUsed: 0, error: String(error) };
		append(record);
	});
});
append({ hooksLoaded: process.pid });

async function postExecute(run: FullRunData, workflowData: { id: string }, executionId: string) {
	addGc(gcObserver.takeRecords()); // entries not yet delivered to the observer's callback
	const runGcMs = gcMs;
	const { heapUsed } = process.memoryUsage();
	// the run the snapshot was asked for only: the bench runs another workflow before the next
	const snapshotFile = snapshotPath;
	snapshotPath = undefined;
	if (snapshotFile) {
		const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
		writeFileSync(`${snapshotFile}.heapprofile`, JSON.stringify(profile));
	}
	// what survives a full collection is what the execution keeps alive: `run` holds every item
	// until the node summary below has read it
	if (liveHeap) gc();
	const liveHeapUsed = liveHeap ? process.memoryUsage().heapUsed : undefined;
	const snapshot = snapshotFile && writeHeapSnapshot(snapshotFile);
	const nodes: HookRecord['nodes'] = {};
	for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
		const [task] = tasks;
		nodes[name] = {
			startTime: task.startTime,
			executionTime: task.executionTime,
			items: task.data?.main?.[0]?.length ?? 0,
		};
	}
	const record: HookRecord = {
		executionId,
		workflowId: workflowData.id,
		status: run.status,
		mode: run.mode,
		startedAt: new Date(run.startedAt).toISOString(),
		stoppedAt: run.stoppedAt && new Date(run.stoppedAt).toISOString(),
		error: run.data.resultData.error?.message,
		heapUsed,
		liveHeapUsed,
		...(snapshot ? { snapshot } : {}),
		gcMs: runGcMs,
		nodes,
	};
	append(record);
}

export const workflow = { postExecute: [postExecute] };
