import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import {
	executeWorkflow,
	importCredential,
	importCredentials,
	importOtherCredential,
	importWorkflow,
	importWorkflowFolder,
	importWorkflows,
	n8nCli,
	publishWorkflow,
	type CliOptions,
	type N8nEnvironment,
	type StockroomCredential,
	type WorkflowJson,
} from './cli';
import type { WorkflowRun } from './runData';
import { queryDb } from './db';
import { HarnessError } from './errors';
import {
	isFinished,
	readExecutions,
	type ExecutionFilter,
	type StoredExecution,
} from './executions';
import { waitFor } from './net';
import { installPackage } from './package';
import { cacheDir, N8N_VERSION } from './paths';
import {
	readQueueExecutions,
	startQueueServices,
	startWorker,
	type N8nWorker,
	type QueueServices,
} from './queue';
import { startN8n, type N8nServer, type StartOptions } from './server';

/** Fixed, so a kept user folder (npm start) and its template always decrypt. */
export const ENCRYPTION_KEY = 'stockroom-local-only-encryption-key';

/** The environment every n8n process of a user folder gets (real-n8n.md). */
function n8nEnv(userFolder: string, extra: Record<string, string>): NodeJS.ProcessEnv {
	return {
		...process.env,
		// jest sets NODE_ENV=test, in which n8n refuses to load nodes
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		// nothing outside this machine is reachable; the editor would wait for template lists
		N8N_TEMPLATES_ENABLED: 'false',
		// `execute` prints its result through the logger: below info it disappears
		N8N_LOG_LEVEL: process.env.STOCKROOM_N8N_LOG_LEVEL === 'debug' ? 'debug' : 'info',
		// plain http on 127.0.0.1
		N8N_SECURE_COOKIE: 'false',
		NODE_COMPILE_CACHE: path.join(cacheDir, 'node-compile-cache'),
		...extra,
	};
}

/**
 * A user folder on which one CLI command already ran, so copies skip n8n's ~270 migrations
 * (about 2.5 s). Kept in the cache per n8n version; built atomically.
 */
async function migratedTemplate(): Promise<string> {
	const template = path.join(cacheDir, `n8n-${N8N_VERSION}-template`);
	if (existsSync(path.join(template, '.n8n', 'database.sqlite'))) return template;
	mkdirSync(cacheDir, { recursive: true });
	const work = mkdtempSync(`${template}.tmp-`);
	await n8nCli({ userFolder: work, env: n8nEnv(work, {}) }, ['list:workflow']);
	// fold the WAL into the database file so a copy is one consistent file
	const db = new DatabaseSync(path.join(work, '.n8n', 'database.sqlite'));
	db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
	db.close();
	if (existsSync(template)) rmSync(work, { recursive: true, force: true });
	else renameSync(work, template);
	return template;
}

export interface HomeOptions {
	/** A folder kept between runs (made from the template when new); default: a fresh temp one. */
	folder?: string;
	/** Install the built package (default true). */
	withPackage?: boolean;
	/** Extra environment for every n8n process of this folder. */
	env?: Record<string, string>;
	/**
	 * Queue mode (Redis, Postgres, a main and workers) instead of one process with SQLite. Default:
	 * on when STOCKROOM_E2E_QUEUE=1 (`npm run e2e:queue`), so the same suites run both ways.
	 */
	queue?: boolean;
	/** Durable poller cursors; default: on when STOCKROOM_E2E_DURABLE_CURSORS=1. */
	durableCursors?: boolean;
}

/** Main hands manual runs to the workers too (n8n 3 will always do so). */
const QUEUE_MAIN_ENV = { OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true' };

/**
 * n8n 2.36+ can keep each poller's cursor (its static data) in its own table, committed with the
 * execution a poll starts and after every poll that emits nothing. It needs the durable scheduler.
 */
const DURABLE_CURSORS_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};

/** Where workflows run in queue mode: the main instance and its workers. */
export interface QueueRuntime {
	services: QueueServices;
	main?: N8nServer;
	/** The workers running now. */
	workers: N8nWorker[];
	/** Every worker started, stopped ones included: which one ran an execution. */
	started: N8nWorker[];
}

/** A run in queue mode also says which worker carried it out. */
export type QueueRun = StoredExecution & { worker?: string };

/** One n8n user folder and everything tests do with it. */
export class N8nHome implements N8nEnvironment {
	constructor(
		readonly userFolder: string,
		readonly env: NodeJS.ProcessEnv,
		private readonly temporary: boolean,
		/** Set in queue mode. */
		readonly queue?: QueueRuntime,
	) {}

	get dbPath(): string {
		return path.join(this.userFolder, '.n8n', 'database.sqlite');
	}

	cli(args: string[], options?: CliOptions) {
		return n8nCli(this, args, options);
	}

	importCredential(credential: StockroomCredential) {
		return importCredential(this, credential);
	}

	importCredentials(credentials: StockroomCredential[]) {
		return importCredentials(this, credentials);
	}

	importOtherCredential(credential: Parameters<typeof importOtherCredential>[1]) {
		return importOtherCredential(this, credential);
	}

	importWorkflow(workflow: WorkflowJson) {
		return importWorkflow(this, workflow);
	}

	importWorkflowFolder(dir: string) {
		return importWorkflowFolder(this, dir);
	}

	importWorkflows(workflows: WorkflowJson[]) {
		return importWorkflows(this, workflows);
	}

	/**
	 * Runs a workflow from its Manual Trigger: `n8n execute` in one process; in queue mode through
	 * the main instance, which hands the run to a worker (main and workers start on first use).
	 */
	async executeWorkflow(id: string): Promise<WorkflowRun | QueueRun> {
		if (!this.queue) return await executeWorkflow(this, id);
		const { main } = await this.startQueue();
		const [{ nodes }] = this.queue.services.query<{ nodes: Array<{ name: string; type: string }> }>(
			`SELECT nodes FROM workflow_entity WHERE id = '${id}'`,
		);
		const trigger = nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
		if (!trigger) throw new HarnessError(`workflow ${id} has no Manual Trigger to run it from`);
		const executionId = await main.rest.runWorkflow(id, trigger.name);
		const run = await this.waitForExecution(executionId, 180_000);
		// the point of queue mode: main hands every run to a worker
		if (!run.worker) throw new HarnessError(`run ${executionId} was not carried out by a worker`);
		return run;
	}

	publishWorkflow(id: string) {
		return publishWorkflow(this, id);
	}

	/** Queue mode: the main instance (offloading manual runs) and `workers` workers, once. */
	async startQueue(workers = 2): Promise<{ main: N8nServer; workers: N8nWorker[] }> {
		const queue = this.queue;
		if (!queue) throw new HarnessError('not a queue-mode installation');
		queue.main ??= await startN8n(this, { env: QUEUE_MAIN_ENV });
		for (let index = queue.workers.length; index < workers; index++) {
			const taken = new Set(queue.workers.map((worker) => worker.name));
			let number = 1;
			while (taken.has(`worker-${number}`)) number++;
			const worker = await startWorker(this, `worker-${number}`, queue.services.logDir);
			queue.workers.push(worker);
			queue.started.push(worker);
		}
		return { main: queue.main, workers: queue.workers };
	}

	/**
	 * `n8n start`; in queue mode the main instance, with two workers running beside it (started
	 * once, kept across restarts of main) so its executions run.
	 */
	async start(options?: StartOptions): Promise<N8nServer> {
		if (!this.queue) return await startN8n(this, options);
		const main = await startN8n(this, { ...options, env: { ...QUEUE_MAIN_ENV, ...options?.env } });
		this.queue.main = main;
		await this.startQueue();
		return main;
	}

	/** Stored executions, oldest first; in queue mode each says which worker ran it. */
	readExecutions(filter: ExecutionFilter = {}): QueueRun[] {
		if (!this.queue) return readExecutions(this.dbPath, filter);
		const executions = readQueueExecutions(this.queue.services, filter);
		const ranBy = new Map<string, string>();
		for (const worker of this.queue.started) {
			for (const id of worker.startedExecutions()) ranBy.set(id, worker.name);
		}
		return executions.map((execution) => {
			const worker = ranBy.get(execution.id);
			return worker ? { ...execution, worker } : execution;
		});
	}

	/** An execution once it has finished (whatever its status); a HarnessError after `timeoutMs`. */
	async waitForExecution(id: string, timeoutMs = 30_000): Promise<QueueRun> {
		return await waitFor(
			`execution ${id} to finish`,
			() => {
				const [execution] = this.readExecutions({ id });
				return execution && isFinished(execution) ? execution : undefined;
			},
			timeoutMs,
		);
	}

	/** Rows of n8n's database, SQLite or (queue mode) Postgres; `sql` quotes camelCase columns. */
	private rows<T>(sql: string): T[] {
		return this.queue ? this.queue.services.query<T>(sql) : queryDb<T>(this.dbPath, sql);
	}

	/** A workflow's static data as n8n last saved it (trigger state), parsed. */
	staticData(workflowId: string): Record<string, unknown> {
		const [row] = this.rows<{ staticData: unknown }>(
			`SELECT "staticData" FROM workflow_entity WHERE id = '${workflowId.replace(/'/g, "''")}'`,
		);
		const data = row?.staticData;
		if (!data) return {};
		return (typeof data === 'string' ? JSON.parse(data) : data) as Record<string, unknown>;
	}

	/** Whether n8n keeps poller cursors in their own table (durable cursors). */
	get durableCursors(): boolean {
		return this.env.N8N_POLLER_DURABLE_CURSORS_ENABLED === 'true';
	}

	/** A workflow's durable poller cursors (durable cursors only), by node id. */
	pollerCursors(workflowId: string): Record<string, unknown> {
		const rows = this.rows<{ nodeId: string; cursor: unknown }>(
			`SELECT "nodeId", cursor FROM poller_state WHERE "workflowId" = '${workflowId.replace(/'/g, "''")}'`,
		);
		return Object.fromEntries(
			rows.map(({ nodeId, cursor }) => [
				nodeId,
				typeof cursor === 'string' ? (JSON.parse(cursor) as unknown) : cursor,
			]),
		);
	}

	workflows(): Array<{ id: string; name: string }> {
		return this.rows('SELECT id, name FROM workflow_entity');
	}

	credentials(): Array<{ id: string; name: string; type: string }> {
		return this.rows('SELECT id, name, type FROM credentials_entity');
	}

	/** Stops what queue mode started and removes a temporary folder (a kept one stays). */
	async dispose(): Promise<void> {
		if (this.queue) {
			const { services, main, workers } = this.queue;
			await Promise.allSettled(workers.map((worker) => worker.stop()));
			await main?.stop().catch(() => undefined);
			await services.stop();
		}
		if (this.temporary) rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** A fresh (or kept) n8n user folder, migrated, with the package installed. */
export async function createN8nHome(options: HomeOptions = {}): Promise<N8nHome> {
	const temporary = options.folder === undefined;
	const userFolder = options.folder ?? mkdtempSync(path.join(tmpdir(), 'stockroom-n8n-'));
	const queue = options.queue ?? process.env.STOCKROOM_E2E_QUEUE === '1';
	const durable = options.durableCursors ?? process.env.STOCKROOM_E2E_DURABLE_CURSORS === '1';
	const extra = { ...(durable ? DURABLE_CURSORS_ENV : {}), ...options.env };
	if (queue) {
		// n8n migrates the Postgres database at its first command
		if (options.withPackage !== false) installPackage(userFolder);
		const services = await startQueueServices();
		const env = n8nEnv(userFolder, { ...services.env, ...extra });
		return new N8nHome(userFolder, env, temporary, { services, workers: [], started: [] });
	}
	if (!existsSync(path.join(userFolder, '.n8n', 'database.sqlite'))) {
		cpSync(await migratedTemplate(), userFolder, { recursive: true });
	}
	if (options.withPackage !== false) installPackage(userFolder);
	return new N8nHome(userFolder, n8nEnv(userFolder, extra), temporary);
}
