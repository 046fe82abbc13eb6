import { isFinished, storedExecution, type ExecutionRow } from '../../../scripts/n8n/executions';

const row = (id: number, status: string): ExecutionRow => ({
	id,
	workflowId: 'w1',
	mode: 'manual',
	status,
	startedAt: '2026-11-26T07:00:00.000Z',
	stoppedAt: '2026-11-26T07:00:01.000Z',
	// the run data of the execution's start holds no node's run yet; parsed here as no data
	data: null,
});

describe('stored executions in the e2e harness', () => {
	// n8n 1.x stores an execution's status and its run data in two writes; a test that read the
	// status alone saw a stopped run without its error (CI, n8n 1.123.81, On Error: Stop Workflow)
	it.each(['success', 'error'])(
		'a run marked %s whose run data is not stored yet is not over',
		(status) => {
			const execution = storedExecution('test.sqlite', row(1, status));
			expect(isFinished(execution)).toBe(false);
		},
	);

	it.each(['crashed', 'canceled'])('a %s run is over even with no run data', (status) => {
		expect(isFinished(storedExecution('test.sqlite', row(2, status)))).toBe(true);
	});

	it.each(['new', 'running'])('a %s run is not over', (status) => {
		expect(isFinished(storedExecution('test.sqlite', row(3, status)))).toBe(false);
	});
});
