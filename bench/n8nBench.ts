import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { sandboxCredentialInput } from '../sandbox/credential';
import type { Sandbox } from '../sandbox/server';
import {
	createN8nHome,
	CREDENTIAL_TYPE,
	HarnessError,
	queryDb,
	waitFor,
	type CredentialRef,
	type N8nHome,
	type N8nServer,
	type WorkflowJson,
} from '../scripts/n8n';
import type { GcRecord, HookRecord } from './n8nHooks';
import { cpuMs, readStatus } from './proc';
import { requestCounts, Traffic } from './traffic';
import { releaseLastRun } from './workflows';

/** One run of a benchmarked workflow. */
export interface RunResult {
	/** The webhook call, from sending it to n8n's answer. */
	wallMs: number;
	/** startedAt → stoppedAt of the execution. */
	executionMs: number;
	/** Each node's own executionTime. */
	nodeMs: Record<string, number>;
	/** Peak resident memory of the n8n process during the run (VmHWM, reset before the run). */
	peakRssBytes: number;
	/** Its resident memory when the run started (after a full garbage collection). */
	startRssBytes: number;
	/** V8 heap in use when the execution finished (n8n's own ~200 MB included). */
	heapAtEndBytes: number;
	/** V8 heap in use when the run started, after a full collection. */
	heapAtStartBytes: number;
	/** The same after a full garbage collection: what the execution keeps alive. */
	liveHeapAtEndBytes: number;
	/** Time n8n spent in garbage collection during the run. */
	gcMs: number;
	/** CPU time (user + system, all threads) the n8n process used during the run. */
	n8nCpuMs: number;
	/** CPU time this process (the sandbox) used during the run. */
	sandboxCpuMs: number;
	apiRequests: number;
	tokenRequests: number;
	bytesSent: number;
	/** `limit` of each list request, as sent. */
	pageLimits: number[];
	/** Each different `filter` the list requests carried. */
	filters: string[];
	/** TCP connections the sandbox accepted. */
	connections: number;
	/** The most open at once: n8n does not reuse connections, so its requests in flight. */
	maxOpenConnections: number;
	/** The last node's answer (the count). */
	answer: Record<string, unknown>;
}

/**
 * One long-lived `n8n start` with this package, a credential for the sandbox and the benchmarked
 * workflows published behind production webhooks. Executions are not saved (saving 100,000 items
 * costs more than listing them); their timings come from an external hook (n8nHooks.ts).
 */
export class N8nBench {
	private seenLines = 0;
	/** Name for the CPU profile of the last run, written when the next one starts. */
	private lastLabel = 'setup';
	/** The webhook of `releaseLastRun`, called before each measured run. */
	private releaseUrl = '';

	private constructor(
		readonly home: N8nHome,
		readonly server: N8nServer,
		readonly credential: CredentialRef,
		private readonly sandbox: Sandbox,
		private readonly traffic: Traffic,
		private readonly logFile: string,
		private readonly profileDir?: string,
	) {}

	/** With `profileDir`, each run's CPU profile of n8n is written there as `<label>.cpuprofile`. */
	static async start(sandbox: Sandbox, workDir: string, profileDir?: string): Promise<N8nBench> {
		const logFile = path.join(workDir, 'executions.jsonl');
		writeFileSync(logFile, '');
		if (profileDir) mkdirSync(profileDir, { recursive: true });
		const hooks = path.join(__dirname, 'n8nHooks.js');
		if (!existsSync(hooks)) throw new HarnessError(`${hooks} is missing: run npm run build:dev`);
		const home = await createN8nHome({
			env: {
				EXTERNAL_HOOK_FILES: hooks,
				STOCKROOM_BENCH_LOG: logFile,
				EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
				STOCKROOM_BENCH_LIVE_HEAP: '1',
				...(profileDir ? { STOCKROOM_BENCH_PROFILE_DIR: profileDir } : {}),
			},
		});
		const server = await home.start({ logFile: path.join(workDir, 'n8n.log') });
		try {
			// without the hook's SIGUSR2 handler the signal would end n8n
			if (!readFileSync(logFile, 'utf8').includes('"hooksLoaded"')) {
				throw new HarnessError(`n8n did not load ${hooks}`);
			}
			const id = await server.rest.createCredential({
				name: 'Stockroom sandbox',
				type: CREDENTIAL_TYPE,
				data: sandboxCredentialInput(sandbox),
			});
			const bench = new N8nBench(
				home,
				server,
				{ id, name: 'Stockroom sandbox' },
				sandbox,
				new Traffic(),
				logFile,
				profileDir,
			);
			bench.releaseUrl = await bench.deploy(releaseLastRun('release-last-run', bench.credential));
			await bench.collectGarbage();
			return bench;
		} catch (error) {
			await stopN8n(home, server);
			throw error;
		}
	}

	/** Saves and publishes a workflow; returns its production webhook URL. */
	async deploy(workflow: WorkflowJson): Promise<string> {
		const { rest } = this.server;
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
		const { path: webhookPath } = trigger.parameters;
		// activation may answer before the webhook is stored, and a POST before that is a 404
		await waitFor(
			`n8n to register the webhook ${webhookPath}`,
			() => {
				const rows = queryDb(
					this.home.dbPath,
					`SELECT 1 FROM webhook_entity WHERE webhookPath = ? AND method = 'POST'`,
					webhookPath,
				);
				return rows.length ? true : undefined;
			},
			30_000,
			100,
		);
		return `${this.server.url}/webhook/${webhookPath}`;
	}

	/** Runs a deployed workflow once and measures it; `label` names its CPU profile. */
	async run(
		webhookUrl: string,
		body: unknown = {},
		label = 'run',
		sandbox = this.sandbox,
	): Promise<RunResult> {
		await this.releaseLastRun();
		const { heapUsed: heapAtStartBytes } = await this.collectGarbage();
		this.lastLabel = label;
		const { pid } = this.server;
		writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
		const startRssBytes = readStatus(pid, 'VmRSS');
		sandbox.resetStats();
		this.traffic.reset();
		const n8nCpuBefore = cpuMs(pid);
		const sandboxCpuBefore = process.cpuUsage();
		const started = performance.now();
		const text = await postJson(webhookUrl, body);
		const wallMs = performance.now() - started;
		const record = await this.nextLine((line): line is HookRecord => 'executionId' in line);
		if (record.status !== 'success') {
			throw new HarnessError(`execution ${record.executionId} ${record.status}: ${record.error}`);
		}
		const peakRssBytes = readStatus(pid, 'VmHWM');
		const n8nCpuMs = cpuMs(pid) - n8nCpuBefore;
		const sandboxCpu = process.cpuUsage(sandboxCpuBefore);
		const stats = sandbox.stats();
		const requests = requestCounts(stats);
		const gets = sandbox.journal().filter((entry) => entry.method === 'GET');
		const pageLimits = gets.map((entry) => Number(entry.query.limit));
		const filters = [...new Set(gets.flatMap((entry) => entry.query.filter ?? []))];
		return {
			wallMs,
			executionMs: Date.parse(record.stoppedAt ?? '') - Date.parse(record.startedAt),
			nodeMs: Object.fromEntries(
				Object.entries(record.nodes).map(([name, node]) => [name, node.executionTime]),
			),
			peakRssBytes,
			startRssBytes,
			heapAtEndBytes: record.heapUsed,
			heapAtStartBytes,
			liveHeapAtEndBytes: record.liveHeapUsed ?? Number.NaN,
			gcMs: record.gcMs,
			n8nCpuMs,
			sandboxCpuMs: (sandboxCpu.user + sandboxCpu.system) / 1000,
			apiRequests: requests.api,
			tokenRequests: requests.token,
			bytesSent: stats.bytesSent,
			pageLimits,
			filters,
			...this.traffic.read(),
			answer: JSON.parse(text) as Record<string, unknown>,
		};
	}

	/**
	 * Runs a deployed workflow once with n8n's CPU profiler on; returns the profile's file (in the
	 * profile folder, or beside the hook's log).
	 */
	async profile(webhookUrl: string, label: string, body?: unknown): Promise<string> {
		writeFileSync(`${this.logFile}.profile-next`, '');
		await this.run(webhookUrl, body, label);
		await this.collectGarbage(); // writes the profile
		return path.join(this.profileDir ?? path.dirname(this.logFile), `${label}.cpuprofile`);
	}

	/**
	 * Runs a deployed workflow once and writes a heap snapshot of n8n at its end, while the
	 * execution's items are still referenced; returns the run and the snapshot's file.
	 */
	async snapshot(
		webhookUrl: string,
		file: string,
		body?: unknown,
	): Promise<{ run: RunResult; file: string }> {
		writeFileSync(`${this.logFile}.snapshot-next`, file);
		const run = await this.run(webhookUrl, body, path.basename(file));
		if (!existsSync(file)) throw new HarnessError(`n8n wrote no heap snapshot to ${file}`);
		return { run, file };
	}

	/** A credential for another sandbox (e.g. one behind a network profile). */
	async addCredential(sandbox: Sandbox, name: string): Promise<CredentialRef> {
		const id = await this.server.rest.createCredential({
			name,
			type: CREDENTIAL_TYPE,
			data: sandboxCredentialInput(sandbox),
		});
		return { id, name };
	}

	async stop(): Promise<void> {
		try {
			if (this.profileDir) await this.collectGarbage(); // writes the last run's profile
		} finally {
			await stopN8n(this.home, this.server);
		}
	}

	/**
	 * n8n holds the data of the execution it ran last (all its items) until it runs another one:
	 * measured, the heap after a full collection at the start of a run was the last run's items
	 * higher. A run's heap at the end then counted the items of the run before it (the other
	 * side's, runs alternating) whenever V8 had not run a full collection during the run. A tiny
	 * execution in between lets the collection before each run free them.
	 */
	private async releaseLastRun(): Promise<void> {
		// n8n answers 503 "Database is not ready!" after a database ping timed out, which a run
		// that kept its event loop busy for seconds can cause (the HTTP Request node's 1,000
		// upserts do); its next ping, seconds later, makes it ready again
		for (let waited = 0; ; waited += 1000) {
			try {
				await postJson(this.releaseUrl, {});
				break;
			} catch (error) {
				if (!/answered 503: .*Database is not ready/.test(String(error)) || waited >= 60_000)
					throw error;
				await sleep(1000);
			}
		}
		await this.nextLine((line): line is HookRecord => 'executionId' in line);
	}

	/**
	 * A full garbage collection in n8n (the hook's SIGUSR2 handler), so runs start alike; when
	 * profiling, the hook writes the last run's profile, named here after that run.
	 */
	private async collectGarbage(): Promise<GcRecord> {
		process.kill(this.server.pid, 'SIGUSR2');
		const record = await this.nextLine((line): line is GcRecord => 'gc' in line);
		if (record.error) throw new HarnessError(`n8n's bench hook failed: ${record.error}`);
		if (record.profile) {
			const dir = this.profileDir ?? path.dirname(this.logFile);
			renameSync(record.profile, path.join(dir, `${this.lastLabel}.cpuprofile`));
		}
		return record;
	}

	/** The next line of the hook's log that matches, waiting for it. */
	private async nextLine<T extends object>(
		matches: (line: object) => line is T,
		timeoutMs = 300_000,
	): Promise<T> {
		return await waitFor(
			`n8n's bench hook to write to ${this.logFile}`,
			() => {
				const lines = readFileSync(this.logFile, 'utf8').split('\n').filter(Boolean);
				while (this.seenLines < lines.length) {
					const line = JSON.parse(lines[this.seenLines++]) as object;
					if (matches(line)) return line;
				}
				return undefined;
			},
			timeoutMs,
			10,
		);
	}
}

/**
 * POSTs JSON and waits for the answer as long as it takes: fetch gives up when an answer's headers
 * take more than 300 s, and a run may (the hand-built sync at 100,000 assets takes minutes).
 * Gives the answer's text; an answer other than 2xx fails.
 */
function postJson(url: string, body: unknown): Promise<string> {
	const payload = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const request = http.request(
			url,
			{
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(payload),
				},
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('error', reject);
				response.on('end', () => {
					const status = response.statusCode ?? 0;
					const text = Buffer.concat(chunks).toString();
					if (status >= 200 && status < 300) resolve(text);
					else reject(new HarnessError(`${url} answered ${status}: ${text.slice(0, 500)}`));
				});
			},
		);
		request.on('error', reject);
		request.end(payload);
	});
}

async function stopN8n(home: N8nHome, server: N8nServer): Promise<void> {
	try {
		await server.stop();
	} finally {
		await home.dispose();
	}
}
