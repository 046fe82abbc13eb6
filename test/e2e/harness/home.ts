import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import {
	executeWorkflow,
	importCredential,
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
import { queryDb } from './db';
import { readExecutions, waitForExecution } from './executions';
import { installPackage } from './package';
import { cacheDir, N8N_VERSION } from './paths';
import { startN8n, type StartOptions } from './server';

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
		N8N_LOG_LEVEL: 'info',
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
}

/** One n8n user folder and everything tests do with it. */
export class N8nHome implements N8nEnvironment {
	constructor(
		readonly userFolder: string,
		readonly env: NodeJS.ProcessEnv,
		private readonly temporary: boolean,
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

	importWorkflow(workflow: WorkflowJson) {
		return importWorkflow(this, workflow);
	}

	importWorkflowFolder(dir: string) {
		return importWorkflowFolder(this, dir);
	}

	importWorkflows(workflows: WorkflowJson[]) {
		return importWorkflows(this, workflows);
	}

	executeWorkflow(id: string) {
		return executeWorkflow(this, id);
	}

	publishWorkflow(id: string) {
		return publishWorkflow(this, id);
	}

	start(options?: StartOptions) {
		return startN8n(this, options);
	}

	readExecutions(filter?: { workflowId?: string }) {
		return readExecutions(this.dbPath, filter);
	}

	waitForExecution(id: string, timeoutMs?: number) {
		return waitForExecution(this.dbPath, id, timeoutMs);
	}

	/** A workflow's static data as n8n last saved it (trigger state), parsed. */
	staticData(workflowId: string): Record<string, unknown> {
		const [row] = queryDb<{ staticData: string | null }>(
			this.dbPath,
			'SELECT staticData FROM workflow_entity WHERE id = ?',
			workflowId,
		);
		return row?.staticData ? (JSON.parse(row.staticData) as Record<string, unknown>) : {};
	}

	workflows(): Array<{ id: string; name: string }> {
		return queryDb(this.dbPath, 'SELECT id, name FROM workflow_entity');
	}

	credentials(): Array<{ id: string; name: string; type: string }> {
		return queryDb(this.dbPath, 'SELECT id, name, type FROM credentials_entity');
	}

	/** Removes a temporary folder (a kept one stays). */
	dispose(): void {
		if (this.temporary) rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** A fresh (or kept) n8n user folder, migrated, with the package installed. */
export async function createN8nHome(options: HomeOptions = {}): Promise<N8nHome> {
	const temporary = options.folder === undefined;
	const userFolder = options.folder ?? mkdtempSync(path.join(tmpdir(), 'stockroom-n8n-'));
	if (!existsSync(path.join(userFolder, '.n8n', 'database.sqlite'))) {
		cpSync(await migratedTemplate(), userFolder, { recursive: true });
	}
	if (options.withPackage !== false) installPackage(userFolder);
	return new N8nHome(userFolder, n8nEnv(userFolder, options.env ?? {}), temporary);
}
