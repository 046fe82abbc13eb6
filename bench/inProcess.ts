import { checkFilter } from '../nodes/shared/filter';
import { compileFilter } from '../nodes/shared/filter/evaluate';
import { ASSETS_PATH } from '../nodes/shared/resources';
import { assetSchema } from '../nodes/shared/schema/asset';
import type { Sandbox } from '../sandbox/server';
import { longExpression } from './filters';
import type { SandboxProcess } from './sandboxProcess';
import { median, percentile } from './stats';

export interface FilterFigures {
	expressionLength: number;
	/** Median per-operation time of parse + validate, over batches. */
	parseValidateMs: number;
	iterations: number;
	evaluateMs: number;
	evaluatedRecords: number;
	matches: number;
}

/** Median time of one call, measured over `batches` batches of `perBatch` calls each. */
function perOperation(run: () => void, batches: number, perBatch: number): number {
	for (let i = 0; i < perBatch; i++) run(); // warm-up: JIT and caches
	const times: number[] = [];
	for (let batch = 0; batch < batches; batch++) {
		const started = performance.now();
		for (let i = 0; i < perBatch; i++) run();
		times.push((performance.now() - started) / perBatch);
	}
	return median(times);
}

/** The filter module: parse + validate of a 2 KB expression; a three-clause filter evaluated. */
export function filterFigures(
	sandbox: Sandbox,
	threeClauses: string,
	iterations: number,
): FilterFigures {
	const expression = longExpression();
	const batches = 20;
	const parseValidateMs = perOperation(
		() => checkFilter(expression, assetSchema),
		batches,
		Math.ceil(iterations / batches),
	);
	const records = sandbox.store.assets.all();
	const predicate = compileFilter(checkFilter(threeClauses, assetSchema), assetSchema);
	let matches = 0;
	const evaluateMs = perOperation(
		() => {
			matches = 0;
			for (const record of records) if (predicate(record)) matches++;
		},
		7,
		1,
	);
	return {
		expressionLength: expression.length,
		parseValidateMs,
		iterations: batches * Math.ceil(iterations / batches),
		evaluateMs,
		evaluatedRecords: records.length,
		matches,
	};
}

export interface SandboxFigures {
	records: number;
	/** From spawn to listening: Node's start, seeding and binding the port. */
	startMs: number;
	/** Peak RSS of the sandbox process after all of the figures below. */
	peakRssBytes: number;
	pageP50Ms: number;
	pageP95Ms: number;
	pageSamples: number;
	/** Records per filtered page (all but the last page of a walk are full). */
	pageSize: number;
	walkMs: number;
	walkPages: number;
	walkRecords: number;
}

async function getPage(url: string, token: string): Promise<{ results: unknown[]; next?: string }> {
	const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
	if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
	return (await response.json()) as { results: unknown[]; next?: string };
}

/** Follows `next` from `first` to the end; returns pages and records seen. */
async function walk(first: string, token: string, onPage?: (ms: number, size: number) => void) {
	let [url, pages, records] = [first as string | undefined, 0, 0];
	while (url) {
		const started = performance.now();
		const page = await getPage(url, token);
		onPage?.(performance.now() - started, page.results.length);
		pages++;
		records += page.results.length;
		url = page.next;
	}
	return { pages, records };
}

/** The sandbox process over HTTP: filtered pages of 1,000 (p50/p95), a full `next` walk, memory. */
export async function sandboxFigures(
	sandbox: SandboxProcess,
	records: number,
	filter: string,
	samples: number,
): Promise<SandboxFigures> {
	const token = await sandbox.token();
	const list = `${sandbox.url}${ASSETS_PATH}?limit=1000`;
	const filtered = `${list}&filter=${encodeURIComponent(filter)}`;
	const times: number[] = [];
	const sizes: number[] = [];
	await walk(filtered, token); // warm-up
	while (times.length < samples) {
		const before = times.length;
		await walk(filtered, token, (ms, size) => {
			// a walk's short last page is not "a page of 1,000"
			if (size === 1000 && times.length < samples) times.push(ms);
			sizes.push(size);
		});
		if (times.length === before) throw new Error(`fewer than 1,000 assets match ${filter}`);
	}
	const walks: number[] = [];
	let last = { pages: 0, records: 0 };
	for (let i = 0; i < 3; i++) {
		const started = performance.now();
		last = await walk(list, token);
		walks.push(performance.now() - started);
	}
	if (last.records !== records) {
		throw new Error(`the walk saw ${last.records} of ${records} assets`);
	}
	return {
		records,
		startMs: sandbox.startMs,
		peakRssBytes: sandbox.peakRssBytes(),
		pageP50Ms: percentile(times, 50),
		pageP95Ms: percentile(times, 95),
		pageSamples: times.length,
		pageSize: Math.max(...sizes),
		walkMs: median(walks),
		walkPages: last.pages,
		walkRecords: last.records,
	};
}
