import { rmSync } from 'node:fs';
import path from 'node:path';

import { createSandbox } from '../sandbox/server';
import {
	HeapSnapshot,
	largestDifferences,
	summarizeAllocations,
	type AllocationSummary,
	type HeapSummary,
} from './heapSnapshot';
import { N8nBench, type RunResult } from './n8nBench';
import { assetList, httpList } from './workflows';

/** Where the heap went at the end of one list-all run of each side, read from heap snapshots. */
export interface HeapFigures {
	records: number;
	/** The live heap at the end of each side's snapshotted run (after a full collection). */
	a: Side;
	b: Side;
	/** The constructors whose size differs most, A against B. */
	differences: ReturnType<typeof largestDifferences>;
}

interface Side {
	run: RunResult;
	/** What is alive at the end of the run (the snapshot). */
	summary: HeapSummary;
	/** What the run allocated beyond the young generation, garbage included (sampled). */
	allocations: AllocationSummary;
}

const TOP = 12;

/**
 * List-all of `records` assets once per side, each run ending with a heap snapshot of n8n taken
 * while the execution's items are still referenced (a smaller list than the timed one: a
 * snapshot of n8n holding 100,000 records is gigabytes to write and to read), and V8's sampling
 * heap profiler on during the run. The files are deleted once summarized.
 */
export async function heapFigures(
	records: number,
	workDir: string,
	progress: (message: string) => void,
): Promise<HeapFigures> {
	const sandbox = await createSandbox({ records, seed: 1 });
	const bench = await N8nBench.start(sandbox, workDir);
	try {
		const { credential } = bench;
		const urlA = await bench.deploy(assetList('heap-asset', credential));
		const urlB = await bench.deploy(httpList('heap-http', credential, sandbox.url));
		// warm-up: the token, the JIT and n8n's first-use allocations are in neither snapshot
		await bench.run(urlA);
		await bench.run(urlB);
		const side = async (url: string, name: string) => {
			const file = path.join(workDir, `${name}.heapsnapshot`);
			const { run } = await bench.snapshot(url, file);
			if (run.answer.count_id !== records) {
				throw new Error(
					`heap ${name}: expected ${records} items, got ${JSON.stringify(run.answer)}`,
				);
			}
			progress(`heap snapshot of ${name}: reading`);
			const snapshot = new HeapSnapshot(file);
			const allocations = summarizeAllocations(`${file}.heapprofile`);
			rmSync(file);
			rmSync(`${file}.heapprofile`);
			return { run, snapshot, allocations };
		};
		const a = await side(urlA, 'asset');
		const b = await side(urlB, 'http');
		const summaryA = a.snapshot.summarize();
		const summaryB = b.snapshot.summarize();
		const differences = largestDifferences(summaryA, summaryB, TOP);
		const names = differences.map((entry) => entry.name);
		return {
			records,
			a: { run: a.run, summary: a.snapshot.summarize(names), allocations: a.allocations },
			b: { run: b.run, summary: b.snapshot.summarize(names), allocations: b.allocations },
			differences,
		};
	} finally {
		await bench.stop();
		await sandbox.close();
	}
}
