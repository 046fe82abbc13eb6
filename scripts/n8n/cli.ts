import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { StockroomOAuth2Api } from '../../credentials/StockroomOAuth2Api.credentials';
import type { CredentialInput } from '../../sandbox/credential';
import { HarnessError, tail } from './errors';
import { freePort } from './net';
import { CREDENTIAL_TYPE, N8N_MAJOR, n8nBin, n8nNode, preloadPath } from './paths';
import { parseRun, type WorkflowRun } from './runData';

/** What every n8n process of one user folder needs. */
export interface N8nEnvironment {
	readonly userFolder: string;
	readonly env: NodeJS.ProcessEnv;
}

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
	ms: number;
}

export interface CliOptions {
	/** Exit codes that count as a result rather than a failure (default: only 0). */
	okCodes?: number[];
	timeoutMs?: number;
}

/** Node, the preload that prevents the exit-time SIGSEGV, and n8n's binary. */
export function n8nCommand(args: string[]): [string, string[]] {
	if (Number(process.versions.node.split('.')[0]) < 24) {
		throw new HarnessError(
			`n8n needs Node 24, this is ${process.version}: source scripts/node24.sh`,
		);
	}
	return [n8nNode(), ['-r', preloadPath, n8nBin(), ...args]];
}

/** Runs one n8n CLI command; a crash, a signal or an unexpected exit code is a HarnessError. */
export async function n8nCli(
	home: N8nEnvironment,
	args: string[],
	{ okCodes = [0], timeoutMs = 180_000 }: CliOptions = {},
): Promise<CliResult> {
	const [command, commandArgs] = n8nCommand(args);
	// the task runner broker's default port 5679 may be taken, also by a parallel command
	const env = { N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...home.env };
	const started = Date.now();
	const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		child.kill('SIGKILL');
	}, timeoutMs);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
		(resolve, reject) => {
			child.on('error', reject);
			child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
		},
	).finally(() => clearTimeout(timer));
	const ms = Date.now() - started;
	const output = `stdout:\n${tail(stdout)}\nstderr:\n${tail(stderr)}`;
	const what = `n8n ${args.join(' ')}`;
	if (timedOut) throw new HarnessError(`${what} timed out after ${ms} ms\n${output}`);
	if (signal !== null || code === null || code >= 128) {
		throw new HarnessError(`${what} died (${signal ?? `exit ${code}`}) after ${ms} ms\n${output}`);
	}
	if (!okCodes.includes(code)) {
		throw new HarnessError(`${what} exited ${code} after ${ms} ms\n${output}`);
	}
	return { code, stdout, stderr, ms };
}

/** Writes JSON to a scratch file, runs the command with it, and removes it. */
async function withJsonFile<T>(
	home: N8nEnvironment,
	data: unknown,
	run: (file: string) => Promise<T>,
) {
	const dir = mkdtempSync(path.join(home.userFolder, 'input-'));
	const file = path.join(dir, 'input.json');
	writeFileSync(file, JSON.stringify(data));
	try {
		return await run(file);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** An id in n8n's own format (16 alphanumerics). */
export function newId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return Array.from(randomBytes(16), (byte) => alphabet[byte % alphabet.length]).join('');
}

export interface StockroomCredential extends CredentialInput {
	id?: string;
	name?: string;
}

/**
 * The credential's default scopes. An imported credential keeps only the data given: without
 * scopes, n8n's dialog would show none selected, as if the user had cleared them.
 */
const DEFAULT_SCOPES = new StockroomOAuth2Api().properties.find(({ name }) => name === 'scopes')!
	.default as string[];

/** Imports a credential of our type from plain-text data (n8n encrypts it); returns its id. */
export async function importCredential(
	home: N8nEnvironment,
	credential: StockroomCredential,
): Promise<string> {
	const [id] = await importCredentials(home, [credential]);
	return id;
}

/** Several credentials of our type in one n8n process; returns their ids. */
export async function importCredentials(
	home: N8nEnvironment,
	credentials: StockroomCredential[],
): Promise<string[]> {
	const complete = credentials.map(
		({
			id = newId(),
			name = 'Stockroom',
			baseUrl,
			clientId,
			clientSecret,
			scopes = DEFAULT_SCOPES,
		}) => ({ id, name, type: CREDENTIAL_TYPE, data: { baseUrl, clientId, clientSecret, scopes } }),
	);
	await importCredentialList(home, complete);
	return complete.map(({ id }) => id);
}

interface CredentialJson {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** Imports a credential of any type (e.g. n8n's `openAiApi`), its data as the dialog holds it. */
export async function importOtherCredential(
	home: N8nEnvironment,
	credential: CredentialJson,
): Promise<void> {
	await importCredentialList(home, [credential]);
}

/** Credentials with their data in plain text (n8n encrypts it), in one n8n process. */
async function importCredentialList(home: N8nEnvironment, credentials: CredentialJson[]) {
	await withJsonFile(home, credentials, (file) =>
		n8nCli(home, ['import:credentials', `--input=${file}`]),
	);
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: unknown[];
	connections: Record<string, unknown>;
	[key: string]: unknown;
}

/** Imports one workflow (given an id if it has none); returns its id. */
export async function importWorkflow(
	home: N8nEnvironment,
	workflow: WorkflowJson,
): Promise<string> {
	const complete = { active: false, settings: {}, ...workflow, id: workflow.id ?? newId() };
	await withJsonFile(home, complete, (file) =>
		n8nCli(home, ['import:workflow', `--input=${file}`]),
	);
	return complete.id;
}

/** Every `*.json` workflow in a folder, in one n8n process. */
export async function importWorkflowFolder(home: N8nEnvironment, dir: string): Promise<void> {
	await n8nCli(home, ['import:workflow', '--separate', `--input=${dir}`]);
}

/** Several workflows in one n8n process (each given an id if it has none); returns their ids. */
export async function importWorkflows(
	home: N8nEnvironment,
	workflows: WorkflowJson[],
): Promise<string[]> {
	const complete = workflows.map((workflow) => ({
		active: false,
		settings: {},
		...workflow,
		id: workflow.id ?? newId(),
	}));
	const dir = mkdtempSync(path.join(home.userFolder, 'workflows-'));
	try {
		complete.forEach((workflow, index) =>
			writeFileSync(path.join(dir, `${index}.json`), JSON.stringify(workflow)),
		);
		await importWorkflowFolder(home, dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return complete.map((workflow) => workflow.id);
}

/**
 * Runs a workflow that starts with a Manual Trigger through `n8n execute`. n8n exits 1 when a node
 * fails; the run is still returned (status 'error', `error` set), only a missing run is thrown.
 */
export async function executeWorkflow(home: N8nEnvironment, id: string): Promise<WorkflowRun> {
	const result = await n8nCli(home, ['execute', `--id=${id}`, '--rawOutput'], { okCodes: [0, 1] });
	const run = parseRun(result.stdout);
	if (!run) {
		throw new HarnessError(
			`n8n execute --id=${id} printed no run (exit ${result.code})\n${tail(result.stdout)}\n${tail(result.stderr)}`,
		);
	}
	return { ...run, cliMs: result.ms };
}

/** Activation (2.x publishes, 1.x sets active): the workflow's triggers start with the next `n8n start`. */
export async function publishWorkflow(home: N8nEnvironment, id: string): Promise<void> {
	await n8nCli(
		home,
		N8N_MAJOR >= 2
			? ['publish:workflow', `--id=${id}`]
			: ['update:workflow', `--id=${id}`, '--active=true'],
	);
}
