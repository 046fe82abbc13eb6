import { createRequire } from 'node:module';
import path from 'node:path';

import type { IRunExecutionData } from 'n8n-workflow';

import { queryDb } from './db';
import { n8nInstallDir } from './paths';
import { summarizeRun, type WorkflowRun } from './runData';

export interface StoredExecution extends WorkflowRun {
	id: string;
	workflowId: string;
	/** 'trigger' for polls of a published workflow, 'cli' for `n8n execute`, 'manual' (editor). */
	mode: string;
}

const UNFINISHED = ['new', 'running'];
const RAN_TO_THE_END = ['success', 'error'];

/** A row of n8n's execution tables, times as ISO text. */
export interface ExecutionRow {
	id: number;
	workflowId: string;
	mode: string;
	status: string;
	startedAt: string | null;
	stoppedAt: string | null;
	data: string | null;
}

/** SQLite keeps UTC as `YYYY-MM-DD HH:MM:SS.SSS`. */
function isoTime(value: string | null): string | undefined {
	return value ? `${value.replace(' ', 'T')}Z` : undefined;
}

/** n8n stores run data `flatted`-encoded; use n8n's own copy of the library. */
function flattedParse(text: string): unknown {
	const requireFromN8n = createRequire(path.join(n8nInstallDir(), 'package.json'));
	return (requireFromN8n('flatted') as { parse: (text: string) => unknown }).parse(text);
}

/**
 * Which executions to read. Run data is parsed for every execution read, and a trigger's run of
 * 20,000 items takes seconds to parse: a waiting test reads only what it has not seen, or else it
 * starves the sandbox that shares its process.
 */
export interface ExecutionFilter {
	workflowId?: string;
	/** Only executions after this one (by id). */
	afterId?: string;
	/** Only this execution. */
	id?: string;
}

/**
 * Parsed runs of finished executions, by database and id, with the stored state they were parsed
 * from. n8n 1.x may store a resumed run's end status before its data: the data read then is the
 * wait's, so a run is parsed again whenever its stored state differs.
 */
const finishedRuns = new Map<string, { state: string; execution: StoredExecution }>();

/**
 * One row of n8n's execution tables as a StoredExecution. A finished execution's run data is
 * parsed once and kept; an unfinished one's is not parsed at all (it may be a trigger's whole
 * payload).
 */
export function storedExecution(database: string, row: ExecutionRow): StoredExecution {
	const key = `${database}#${row.id}`;
	const state = `${row.status}|${row.stoppedAt}|${row.data?.length}`;
	const kept = finishedRuns.get(key);
	if (kept?.state === state) return kept.execution;
	const finished = !UNFINISHED.includes(row.status);
	const parsed = (finished && row.data ? flattedParse(row.data) : undefined) as
		Partial<IRunExecutionData> | undefined;
	// a new or running execution may have no run data yet
	const data = (parsed?.resultData ? parsed : { resultData: { runData: {} } }) as IRunExecutionData;
	const execution: StoredExecution = {
		id: String(row.id),
		workflowId: row.workflowId,
		mode: row.mode,
		...summarizeRun(data, {
			status: row.status,
			startedAt: row.startedAt ?? undefined,
			stoppedAt: row.stoppedAt ?? undefined,
		}),
	};
	// a waiting execution (a Wait node) goes on when it is resumed: read it again next time
	if (isFinished(execution) && execution.status !== 'waiting') {
		finishedRuns.set(key, { state, execution });
	}
	return execution;
}

/** Executions stored in an n8n user folder's SQLite database, oldest first (n8n may be running). */
export function readExecutions(dbPath: string, { workflowId, afterId, id }: ExecutionFilter = {}) {
	const rows = queryDb<ExecutionRow>(
		dbPath,
		`SELECT e.id, e.workflowId, e.mode, e.status, e.startedAt, e.stoppedAt, d.data
		FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id
		WHERE e.deletedAt IS NULL AND (? IS NULL OR e.workflowId = ?)
			AND (? IS NULL OR e.id > ?) AND (? IS NULL OR e.id = ?)
		ORDER BY e.id`,
		workflowId ?? null,
		workflowId ?? null,
		afterId === undefined ? null : Number(afterId),
		afterId === undefined ? null : Number(afterId),
		id === undefined ? null : Number(id),
		id === undefined ? null : Number(id),
	);
	return rows.map((row) =>
		storedExecution(dbPath, {
			...row,
			startedAt: isoTime(row.startedAt) ?? null,
			stoppedAt: isoTime(row.stoppedAt) ?? null,
		}),
	);
}

/**
 * Whether an execution has ended, whatever its status, and its run data is stored. n8n 1.x
 * stores the status and the run data in two writes: a success or an error may come with the data
 * of its start for a moment, so only such a run with something in it is over. (A crashed or
 * cancelled run may have nothing in it.)
 */
export const isFinished = (execution: StoredExecution): boolean => {
	if (UNFINISHED.includes(execution.status)) return false;
	if (!RAN_TO_THE_END.includes(execution.status)) return true;
	return Object.keys(execution.outputs).length > 0 || execution.error !== undefined;
};
