/** Small statistics for noisy machines: medians and percentiles, never single timings. */

export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	// nearest rank: the smallest value with at least p% of the values at or below it
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values: readonly number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median of the per-pair ratios a[i] / b[i]. */
export function pairRatio(a: readonly number[], b: readonly number[]): number {
	return median(a.map((value, i) => value / b[i]));
}

export function ms(value: number): string {
	if (value === 0) return '0 ms';
	if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
	if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
	if (value >= 10) return `${value.toFixed(0)} ms`;
	if (value >= 1) return `${value.toFixed(1)} ms`;
	return `${(value * 1000).toFixed(0)} µs`;
}

export function mb(bytes: number): string {
	const megabytes = bytes / 1024 / 1024;
	if (megabytes >= 10) return `${megabytes.toFixed(0)} MB`;
	if (megabytes >= 1) return `${megabytes.toFixed(1)} MB`;
	if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} kB`;
	return `${bytes} B`;
}

export const count = (value: number): string => value.toLocaleString('en-US');

export const ratio = (value: number): string => value.toFixed(2);

/** A row of a markdown table. */
export const tableRow = (...cells: string[]): string => `| ${cells.join(' | ')} |`;

/** Runs' median with their range, "1.20 s (1.10 s–1.40 s)", or the one value. */
export function spread(values: readonly number[], show: (value: number) => string = ms): string {
	return values.length === 1
		? show(values[0])
		: `${show(median(values))} (${show(Math.min(...values))}–${show(Math.max(...values))})`;
}

/** What every measured n8n run records. */
interface RunMeasures {
	executionMs: number;
	n8nCpuMs: number;
	peakRssBytes: number;
}

/** What the bench tables show of every n8n run, one row each. */
const RUN_METRICS: ReadonlyArray<{
	label: string;
	pick: (run: RunMeasures) => number;
	show: (value: number) => string;
}> = [
	{ label: 'execution (startedAt → stoppedAt)', pick: (run) => run.executionMs, show: ms },
	{ label: 'CPU time of the n8n process', pick: (run) => run.n8nCpuMs, show: ms },
	{ label: 'peak RSS of n8n (VmHWM)', pick: (run) => run.peakRssBytes, show: mb },
];

/** A table row per metric of RUN_METRICS, with a column per set of runs. */
export const runMetricRows = (...columns: ReadonlyArray<readonly RunMeasures[]>): string[] =>
	RUN_METRICS.map(({ label, pick, show }) =>
		tableRow(label, ...columns.map((runs) => spread(runs.map(pick), show))),
	);
