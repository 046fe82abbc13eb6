import { createRequire } from 'node:module';
import path from 'node:path';

import type { IRunExecutionData } from 'n8n-workflow';

import { queryDb } from './db';
import { waitFor } from './net';
import { n8nInstallDir } from './paths';
import { summarizeRun, type WorkflowRun } from './runData';

export interface StoredExecution extends WorkflowRun {
	id: string;
	workflowId: string;
	/** 'trigger' for polls of a published workflow, 'cli' for `n8n execute`, 'manual' (editor). */
	mode: string;
}

interface ExecutionRow {
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

/** Executions stored in an n8n user folder's SQLite database, oldest first (n8n may be running). */
export function readExecutions(dbPath: string, { workflowId }: { workflowId?: string } = {}) {
	const rows = queryDb<ExecutionRow>(
		dbPath,
		`SELECT e.id, e.workflowId, e.mode, e.status, e.startedAt, e.stoppedAt, d.data
		FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id
		WHERE e.deletedAt IS NULL AND (? IS NULL OR e.workflowId = ?)
		ORDER BY e.id`,
		workflowId ?? null,
		workflowId ?? null,
	);
	return rows.map((row): StoredExecution => {
		const parsed = (row.data ? flattedParse(row.data) : undefined) as
			Partial<IRunExecutionData> | undefined;
		// a new or running execution may have no run data yet
		const data = (
			parsed?.resultData ? parsed : { resultData: { runData: {} } }
		) as IRunExecutionData;
		return {
			id: String(row.id),
			workflowId: row.workflowId,
			mode: row.mode,
			...summarizeRun(data, {
				status: row.status,
				startedAt: isoTime(row.startedAt),
				stoppedAt: isoTime(row.stoppedAt),
			}),
		};
	});
}

/** Whether an execution has ended, whatever its status. */
export const isFinished = (execution: StoredExecution): boolean =>
	!['new', 'running'].includes(execution.status);

/** An execution once it has finished (whatever its status); a HarnessError after `timeoutMs`. */
export async function waitForExecution(
	dbPath: string,
	id: string,
	timeoutMs = 30_000,
): Promise<StoredExecution> {
	return await waitFor(
		`execution ${id} to finish`,
		() => {
			const execution = readExecutions(dbPath).find((candidate) => candidate.id === id);
			return execution && isFinished(execution) ? execution : undefined;
		},
		timeoutMs,
	);
}
