/**
 * A million assets (issue 16): the sandbox seeded with 1,000,000 records in a process of its own
 * (its start, peak memory, and a plain walk over every page), then n8n running the example
 * "a million assets, one page per run" against it from start to end: total time, rounds, and
 * n8n's peak resident memory, which the one-page-per-run pattern keeps bounded.
 */
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	importMissingExamples,
} from '../scripts/n8n';
import { readStatus } from './proc';
import { SandboxProcess } from './sandboxProcess';

/** n8n's V8 heap limit for the run (n8n alone takes about a third of it at rest). */
export const HEAP_CAP_MB = 1024;

export interface MillionFigures {
	records: number;
	sandbox: { startMs: number; peakRssBytes: number; walkMs: number; pages: number };
	n8n: {
		executionMs: number;
		rounds: number;
		total: number;
		peakRssBytes: number;
		startRssBytes: number;
	};
}

/** Every page of the list with a plain fetch loop: what serving a million records costs. */
async function walk(
	sandbox: SandboxProcess,
): Promise<{ ms: number; pages: number; records: number }> {
	const token = await sandbox.token();
	const started = performance.now();
	let next: string | undefined = `${sandbox.url}/api/assets/v1?limit=1000`;
	let pages = 0;
	let records = 0;
	while (next) {
		const response = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
		const page = (await response.json()) as { results: unknown[]; next?: string };
		records += page.results.length;
		pages++;
		next = page.next;
	}
	return { ms: performance.now() - started, pages, records };
}

export async function millionFigures(
	records: number,
	progress: (message: string) => void,
): Promise<MillionFigures> {
	progress(
		`a million records: seeding a sandbox process with ${records.toLocaleString('en-US')} assets`,
	);
	const sandbox = await SandboxProcess.start(records);
	try {
		const served = await walk(sandbox);
		if (served.records !== records) {
			throw new Error(`the walk read ${served.records} assets, not ${records}`);
		}
		progress(
			`a million records: the walk took ${Math.round(served.ms)} ms; now the example in n8n`,
		);
		// n8n's heap capped well below what the records would take: bounded memory or a crash
		const home = await createN8nHome({
			env: { GENERIC_TIMEZONE: 'UTC', NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` },
		});
		try {
			await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandbox.credentialInput() });
			await importMissingExamples(home);
			const example = exampleWorkflows().find(({ file }) => file === '5-million-assets.json')!;
			const server = await home.start();
			try {
				const startRssBytes = readStatus(server.pid, 'VmRSS');
				const id = await server.rest.runWorkflow(
					example.workflow.id!,
					'When clicking ‘Execute workflow’',
				);
				const run = await home.waitForExecution(id, 60 * 60_000);
				const peakRssBytes = readStatus(server.pid, 'VmHWM');
				const [done] = run.outputs.Done ?? [];
				if (run.error || !done) {
					throw new Error(`the example did not finish: ${JSON.stringify(run.error ?? run.status)}`);
				}
				return {
					records,
					sandbox: {
						startMs: sandbox.startMs,
						peakRssBytes: sandbox.peakRssBytes(),
						walkMs: served.ms,
						pages: served.pages,
					},
					n8n: {
						executionMs: Date.parse(run.stoppedAt!) - Date.parse(run.startedAt!),
						rounds: Number(done.pages),
						total: Number(done.total),
						peakRssBytes,
						startRssBytes,
					},
				};
			} finally {
				await server.stop();
			}
		} finally {
			await home.dispose();
		}
	} finally {
		await sandbox.stop();
	}
}
