/**
 * `npm start` (after scripts/start.sh has built everything): the sandbox with demo data, then n8n
 * with the package, a ready credential, the examples and an owner account. Ctrl-C stops both.
 * State (n8n's database, the owner, the user's workflows, the sandbox's data) stays in
 * $STOCKROOM_CACHE/start-home.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import {
	cacheDir,
	createN8nHome,
	DEFAULT_OWNER,
	deadline,
	EXAMPLE_CREDENTIAL,
	importMissingExamples,
	isPortTaken,
	NODE,
	RestError,
	repoRoot,
	tail,
	type N8nServer,
} from './n8n';

const CLIENT_ID = 'stockroom-demo';
const CLIENT_SECRET = 'stockroom-demo-secret';
const SANDBOX_READY_MS = 30_000;

interface Sandbox {
	baseUrl: string;
	/** Settles if the sandbox stops on its own. */
	exited: Promise<string>;
	stop(): Promise<void>;
}

/** Sends SIGTERM and waits; SIGKILL after a grace period. */
async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill('SIGTERM');
	if (!(await Promise.race([exited.then(() => true), deadline(graceMs).then(() => false)]))) {
		child.kill('SIGKILL');
		await exited;
	}
}

/**
 * The sandbox (sandbox/cli.ts, built by scripts/start.sh) in its own process, keeping its data
 * in `dataFile` so the demo data lives as long as n8n's state beside it.
 */
async function startSandbox(port: number, dataFile: string): Promise<Sandbox> {
	if (await isPortTaken(port)) {
		throw new Error(`Port ${port} is in use; choose another sandbox port (--sandbox-port)`);
	}
	const cli = path.join(repoRoot, 'build', 'sandbox', 'cli.js');
	if (!existsSync(cli)) {
		throw new Error(`The sandbox is not built (${cli} is missing): run npm run build:dev`);
	}
	const args = [
		cli,
		'--port',
		String(port),
		'--client-id',
		CLIENT_ID,
		'--client-secret',
		CLIENT_SECRET,
		// with an existing file the sandbox loads it and ignores the seeding flags
		'--data',
		dataFile,
	];
	// own process group: Ctrl-C reaches only this controller, which stops children in order
	const child = spawn(process.execPath, args, {
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	const exited = new Promise<string>((resolve) =>
		child.once('exit', (code, signal) =>
			resolve(`sandbox exited (${signal ?? code})\n${tail(output)}`),
		),
	);
	const baseUrl = await new Promise<string>((resolve, reject) => {
		const collect = (chunk: string) => {
			// keep only the latest output, for the message if it dies
			output = (output + chunk).slice(-65536);
			// it prints one line with its base URL when ready
			const url = /https?:\/\/[^\s"')]+/.exec(output)?.[0];
			if (url) resolve(url.replace(/\/+$/, ''));
		};
		child.stdout.setEncoding('utf8').on('data', collect);
		child.stderr.setEncoding('utf8').on('data', collect);
		void exited.then((message) => reject(new Error(message)));
		void deadline(SANDBOX_READY_MS).then(() =>
			reject(new Error(`sandbox not ready after ${SANDBOX_READY_MS} ms\n${tail(output)}`)),
		);
	}).catch(async (error: unknown) => {
		await stopChild(child);
		throw error;
	});
	return { baseUrl, exited, stop: () => stopChild(child) };
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string', default: process.env.N8N_PORT ?? '5678' },
			'sandbox-port': { type: 'string', default: '8787' },
			reset: { type: 'boolean', default: false },
		},
	});
	const port = Number(values.port);
	const folder = path.join(cacheDir, 'start-home');
	if (values.reset) rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	if (await isPortTaken(port)) {
		throw new Error(`Port ${port} is in use; choose another n8n port (npm start -- --port N)`);
	}

	const sandbox = await startSandbox(
		Number(values['sandbox-port']),
		path.join(folder, 'sandbox.json'),
	);
	let server: N8nServer | undefined;
	let setup: Promise<void> = Promise.resolve();
	let stopping = false;
	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n and the sandbox...');
		// n8n runs in its own process group: let a start in progress finish so it can be stopped
		await setup.catch(() => undefined);
		const results = await Promise.allSettled([server?.stop(), sandbox.stop()]);
		for (const result of results) {
			if (result.status === 'rejected') console.error(String(result.reason));
		}
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));
	void sandbox.exited.then((message) => {
		if (stopping) return;
		console.error(message);
		void shutdown(1);
	});

	setup = (async () => {
		const home = await createN8nHome({ folder });
		if (!home.credentials().some((credential) => credential.id === EXAMPLE_CREDENTIAL.id)) {
			await home.importCredential({
				...EXAMPLE_CREDENTIAL,
				baseUrl: sandbox.baseUrl,
				clientId: CLIENT_ID,
				clientSecret: CLIENT_SECRET,
			});
		}
		const imported = await importMissingExamples(home);
		server = await home.start({ port, owner: false, logFile: path.join(folder, 'n8n.log') });
		const running = server;
		void running.exited.then(({ code, signal }) => {
			if (stopping) return;
			console.error(`n8n exited (${signal ?? code})\n${tail(running.output())}`);
			void shutdown(1);
		});
		if (stopping) return;
		const login = await running.rest
			.ensureOwner(DEFAULT_OWNER)
			.then(() => `${DEFAULT_OWNER.email} / ${DEFAULT_OWNER.password}`)
			.catch((error: unknown) => {
				if (error instanceof RestError && error.status === 401) {
					return `${DEFAULT_OWNER.email} with the password you set (npm start -- --reset starts over)`;
				}
				throw error;
			});
		// n8n starts without a package it could not load (e.g. an n8n older than the nodes need)
		const types = (await running.rest.raw('GET', '/types/nodes.json')).body;
		if (
			!Array.isArray(types) ||
			!types.some((type: { name?: string }) => type.name === NODE.asset)
		) {
			throw new Error(
				`n8n started without the Stockroom nodes. Its log:\n${tail(running.output())}`,
			);
		}
		const examples = imported.length > 0 ? `imported ${imported.join(', ')}` : 'none new';
		console.log(
			[
				'',
				'n8n is ready with the Stockroom nodes.',
				`  Editor:      ${running.url}`,
				`  Login:       ${login}`,
				`  Credential:  "${EXAMPLE_CREDENTIAL.name}" → sandbox at ${sandbox.baseUrl}`,
				`  Examples:    ${examples} (from examples/)`,
				`  State:       ${folder} (kept between runs; npm start -- --reset starts over)`,
				`  n8n log:     ${path.join(folder, 'n8n.log')}`,
				'Press Ctrl-C to stop.',
			].join('\n'),
		);
	})();
	await setup.catch(async (error: unknown) => {
		console.error(error instanceof Error ? error.message : error);
		await shutdown(1);
	});
}

void main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
