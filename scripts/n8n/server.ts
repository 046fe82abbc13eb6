import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

import { n8nCommand, type N8nEnvironment } from './cli';
import { HarnessError, tail } from './errors';
import { deadline, freePort, isPortTaken } from './net';
import { DEFAULT_OWNER, N8nRest, type OwnerLogin } from './rest';

export interface StartOptions {
	/** Default: a free port. */
	port?: number;
	/** The owner to create or log in as (default DEFAULT_OWNER); false leaves setup to the user. */
	owner?: OwnerLogin | false;
	/** Also write n8n's output to this file (replacing it). */
	logFile?: string;
	env?: Record<string, string>;
	readyTimeoutMs?: number;
}

export interface N8nServer {
	url: string;
	port: number;
	pid: number;
	/** Logged in as the owner unless `owner: false`. */
	rest: N8nRest;
	/** The latest output (stdout and stderr, up to 1 MB). */
	output(): string;
	/** Settles when the process ends, however it ends. */
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	/** SIGTERM, wait for n8n's graceful shutdown; a crash or a hang is a HarnessError. */
	stop(): Promise<void>;
}

const READY_LINE = 'Editor is now accessible via:';
const OUTPUT_LIMIT = 1 << 20;
const STOP_TIMEOUT_MS = 45_000;

/** `n8n start` on 127.0.0.1; resolves once the editor is served and workflows are activated. */
export async function startN8n(
	home: N8nEnvironment,
	options: StartOptions = {},
): Promise<N8nServer> {
	const port = options.port ?? (await freePort());
	if (await isPortTaken(port)) {
		throw new HarnessError(`Port ${port} is in use; choose another (N8N_PORT or --port)`);
	}
	const env = {
		...home.env,
		N8N_PORT: String(port),
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...options.env,
	};
	const [command, args] = n8nCommand(['start']);
	// own process group: Ctrl-C reaches only our controller, which shuts n8n down in order
	const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	// STOCKROOM_N8N_LOG_DIR keeps every n8n's output, for looking into a failed run
	const keptLog = process.env.STOCKROOM_N8N_LOG_DIR
		? path.join(process.env.STOCKROOM_N8N_LOG_DIR, `n8n-${port}-${Date.now()}.log`)
		: undefined;
	const logFile = options.logFile ?? keptLog;
	const log = logFile ? createWriteStream(logFile) : undefined;
	let output = '';
	let ready = false;
	let onReady: () => void = () => undefined;
	const readyLine = new Promise<void>((resolve) => (onReady = resolve));
	const collect = (chunk: string) => {
		output = (output + chunk).slice(-OUTPUT_LIMIT);
		log?.write(chunk);
		if (!ready && output.includes(READY_LINE)) {
			ready = true;
			onReady();
		}
	};
	child.stdout.setEncoding('utf8').on('data', collect);
	child.stderr.setEncoding('utf8').on('data', collect);
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
		child.on('exit', (code, signal) => resolve({ code, signal })),
	);
	void exited.then(() => log?.end());

	const timeoutMs = options.readyTimeoutMs ?? 120_000;
	const outcome = await Promise.race([
		readyLine.then(() => 'ready' as const),
		exited.then(() => 'exited' as const),
		deadline(timeoutMs).then(() => 'timeout' as const),
	]);
	if (outcome !== 'ready') {
		if (outcome === 'timeout') process.kill(-(child.pid as number), 'SIGKILL');
		throw new HarnessError(
			`n8n start ${outcome === 'timeout' ? `not ready after ${timeoutMs} ms` : 'exited early'}\n${tail(output)}`,
		);
	}

	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
		const result = await Promise.race([exited, deadline(STOP_TIMEOUT_MS).then(() => undefined)]);
		if (!result) {
			process.kill(-(child.pid as number), 'SIGKILL');
			throw new HarnessError(`n8n did not stop within ${STOP_TIMEOUT_MS} ms\n${tail(output)}`);
		}
		const { code, signal } = result;
		if ((signal !== null && signal !== 'SIGTERM') || (code !== null && code >= 128)) {
			throw new HarnessError(`n8n died on stop (${signal ?? `exit ${code}`})\n${tail(output)}`);
		}
	};

	const url = `http://127.0.0.1:${port}`;
	const rest = new N8nRest(url);
	if (options.owner !== false) {
		try {
			await rest.ensureOwner(options.owner ?? DEFAULT_OWNER);
		} catch (error) {
			await stop().catch(() => undefined);
			throw error;
		}
	}
	return { url, port, pid: child.pid as number, rest, output: () => output, exited, stop };
}
