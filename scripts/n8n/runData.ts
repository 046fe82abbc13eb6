import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

export interface RunError {
	message: string;
	description?: string;
	httpCode?: string;
	/** Name of the node that failed, when n8n says. */
	node?: string;
}

export interface WorkflowRun {
	status: string;
	/** Each node's items (`json`) of its first run, first main output. */
	outputs: Record<string, IDataObject[]>;
	/** The error that stopped the run, if one did. */
	error?: RunError;
	/** Per-node errors (a node with Continue On Fail reports its errors in items instead). */
	nodeErrors: Record<string, RunError>;
	startedAt?: string;
	stoppedAt?: string;
	data: IRunExecutionData;
	/** Wall time of the `n8n execute` process, when the run came from it. */
	cliMs?: number;
}

function toRunError(error: unknown): RunError | undefined {
	if (!error || typeof error !== 'object') return undefined;
	const { message, description, httpCode, node } = error as Record<string, unknown>;
	const nodeName = node && typeof node === 'object' ? (node as { name?: unknown }).name : undefined;
	return {
		message: String(message ?? ''),
		...(typeof description === 'string' ? { description } : {}),
		...(httpCode !== undefined && httpCode !== null ? { httpCode: String(httpCode) } : {}),
		...(typeof nodeName === 'string' ? { node: nodeName } : {}),
	};
}

/** The parts of a run tests look at, from n8n's run data. */
export function summarizeRun(
	data: IRunExecutionData,
	meta: { status: string; startedAt?: string; stoppedAt?: string },
): WorkflowRun {
	const outputs: Record<string, IDataObject[]> = {};
	const nodeErrors: Record<string, RunError> = {};
	for (const [node, runs] of Object.entries(data.resultData.runData ?? {})) {
		const first = runs[0];
		outputs[node] = (first?.data?.main?.[0] ?? []).map((item) => item.json);
		const error = toRunError(first?.error);
		if (error) nodeErrors[node] = error;
	}
	const error = toRunError(data.resultData.error);
	return { ...meta, outputs, nodeErrors, data, ...(error ? { error } : {}) };
}

/**
 * The run `n8n execute --rawOutput` prints: stdout mixes log lines with the pretty-printed JSON,
 * which is the block from a line `{` to the next line `}` (nested lines are indented).
 */
export function parseRun(stdout: string): WorkflowRun | undefined {
	const lines = stdout.split('\n');
	const start = lines.indexOf('{');
	const end = lines.indexOf('}', start);
	if (start === -1 || end === -1) return undefined;
	const run = JSON.parse(lines.slice(start, end + 1).join('\n')) as {
		data: IRunExecutionData;
		status: string;
		startedAt?: string;
		stoppedAt?: string;
	};
	// n8n 1.85 prints a finished run with the status it had before it ended: a run that has stopped
	// is over, failed when it carries an error
	const ended = run.status === 'running' && run.stoppedAt !== undefined;
	return summarizeRun(run.data, {
		status: ended ? (run.data.resultData.error ? 'error' : 'success') : run.status,
		startedAt: run.startedAt,
		stoppedAt: run.stoppedAt,
	});
}
