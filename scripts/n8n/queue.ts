import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openChildLog } from './childLog';
import { n8nCommand, type N8nEnvironment } from './cli';
import { HarnessError, tail } from './errors';
import { delay, freePort, isPortTaken, waitFor } from './net';
import {
	storedExecution,
	type ExecutionFilter,
	type ExecutionRow,
	type StoredExecution,
} from './executions';

/**
 * Queue mode as n8n runs it in production, on this machine: a private Redis (Debian's) and Postgres
 * 17 (a version n8n 2.41 supports, from the npm registry), both installed by scripts/queue-deps.sh,
 * on loopback, started here and stopped after.
 */
const PG_BIN =
	process.env.STOCKROOM_PG_BIN ?? '/opt/n8n-nodes-stockroom/postgres-17.10.0-beta.17/bin';
const OUTPUT_LIMIT = 1 << 20;

/** Runs a command as the `postgres` user (Postgres refuses to run as root). */
function asPostgres(command: string, args: string[]): string {
	return execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

export interface QueueServices {
	/** What every n8n process of the queue-mode installation needs to find Redis and Postgres. */
	env: Record<string, string>;
	/** Rows of a query in n8n's database, as JSON objects. */
	query<T>(sql: string): T[];
	/** Where the installation's n8n processes write their output (removed with it). */
	logDir: string;
	stop(): Promise<void>;
}

async function waitForPort(port: number, what: string, child: ChildProcess): Promise<void> {
	const started = Date.now();
	while (!(await isPortTaken(port))) {
		if (child.exitCode !== null) {
			throw new HarnessError(`${what} exited with ${child.exitCode} before listening`);
		}
		if (Date.now() - started > 20_000) {
			throw new HarnessError(`${what} did not listen on ${port} within 20 s`);
		}
		await delay(100);
	}
}

/** Starts Redis and Postgres on free loopback ports with a database for n8n. */
export async function startQueueServices(): Promise<QueueServices> {
	for (const binary of ['/usr/bin/redis-server', path.join(PG_BIN, 'initdb')]) {
		if (!existsSync(binary)) {
			throw new HarnessError(
				`${binary} is missing: run scripts/e2e-queue.sh (scripts/queue-deps.sh installs Redis and Postgres 17)`,
			);
		}
	}
	const dir = mkdtempSync(path.join(tmpdir(), 'stockroom-queue-'));
	chmodSync(dir, 0o777);
	const redisPort = await freePort();
	const redis = spawn(
		'/usr/bin/redis-server',
		['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{ stdio: 'ignore' },
	);
	const pgData = path.join(dir, 'pg');
	const pgPort = await freePort();
	mkdirSync(pgData);
	execFileSync('chown', ['postgres', pgData]);
	asPostgres(path.join(PG_BIN, 'initdb'), ['-D', pgData, '-A', 'trust', '-U', 'postgres']);
	asPostgres(path.join(PG_BIN, 'pg_ctl'), [
		'-D',
		pgData,
		'-o',
		`-p ${pgPort} -c listen_addresses=127.0.0.1 -k ${pgData} -c fsync=off`,
		'-l',
		path.join(pgData, 'server.log'),
		'-w',
		'start',
	]);
	const psql = (sql: string, database = 'n8n') =>
		execFileSync(
			'psql',
			['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', '-d', database, '-Atqc', sql],
			{ encoding: 'utf8', maxBuffer: 256 << 20 },
		);
	await waitForPort(redisPort, 'redis-server', redis);
	psql('CREATE DATABASE n8n', 'postgres');

	return {
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pgPort),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: 'unused-with-trust-auth',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redisPort),
		},
		query<T>(sql: string): T[] {
			const text = psql(`SELECT coalesce(json_agg(q), '[]') FROM (${sql}) q`).trim();
			return JSON.parse(text) as T[];
		},
		logDir: dir,
		async stop() {
			redis.kill('SIGTERM');
			try {
				asPostgres(path.join(PG_BIN, 'pg_ctl'), ['-D', pgData, '-m', 'immediate', 'stop']);
			} finally {
				if (redis.exitCode === null) await new Promise((resolve) => redis.once('exit', resolve));
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
}

/** Executions in n8n's Postgres database, oldest first. */
export function readQueueExecutions(
	services: QueueServices,
	{ workflowId, afterId, id }: ExecutionFilter = {},
): StoredExecution[] {
	const database = `postgres:${services.env.DB_POSTGRESDB_PORT}`;
	const where = [
		workflowId ? `AND e."workflowId" = '${workflowId.replace(/'/g, "''")}'` : '',
		afterId === undefined ? '' : `AND e.id > ${Number(afterId)}`,
		id === undefined ? '' : `AND e.id = ${Number(id)}`,
	].join(' ');
	// psql hands rows over as JSON: run data only where it will be read (a finished run not read yet)
	const rows = services.query<ExecutionRow>(
		`SELECT e.id, e."workflowId", e.mode, e.status, e."startedAt", e."stoppedAt",
			CASE WHEN e.status IN ('new', 'running') THEN NULL ELSE d.data END AS data
		FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
		WHERE e."deletedAt" IS NULL ${where} ORDER BY e.id`,
	);
	return rows.map((row) => storedExecution(database, row));
}

export interface N8nWorker {
	readonly name: string;
	/** The worker's n8n process (unshare and bash exec it in place). */
	readonly pid: number;
	/** Executions this worker has started, by the id n8n logged. */
	startedExecutions(): string[];
	output(): string;
	/** SIGTERM and wait for n8n's graceful shutdown. */
	stop(): Promise<void>;
	/** SIGKILL: a worker lost mid-execution. */
	kill(): Promise<void>;
}

const WORKER_READY = 'n8n worker is now ready';

/**
 * `n8n worker` under its own hostname (n8n names a worker after its host, and two workers on one
 * host would share an id), with its own task-runner port.
 */
export async function startWorker(
	home: N8nEnvironment,
	name: string,
	logDir: string,
	concurrency = 5,
): Promise<N8nWorker> {
	const [command, args] = n8nCommand(['worker', `--concurrency=${concurrency}`]);
	const env = { ...home.env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
	// STOCKROOM_N8N_LOG_DIR keeps every worker's output, for looking into a failed run
	const log = openChildLog(process.env.STOCKROOM_N8N_LOG_DIR ?? logDir, `worker-${name}`);
	const child = spawn(
		'unshare',
		['--uts', 'bash', '-c', 'hostname "$0" && exec "$@"', name, command, ...args],
		{ env, stdio: log.stdio },
	);
	log.spawned();
	const output = () => log.text().slice(-OUTPUT_LIMIT);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	await waitFor(
		`worker ${name} to be ready`,
		() => {
			if (log.text().includes(WORKER_READY)) return true;
			if (child.exitCode !== null) {
				throw new HarnessError(`worker ${name} exited ${child.exitCode}\n${tail(output())}`);
			}
			return undefined;
		},
		120_000,
		200,
	);
	const pattern = /Worker started execution (\d+)/g;
	return {
		name,
		pid: child.pid as number,
		startedExecutions() {
			return [...new Set(Array.from(log.text().matchAll(pattern), (match) => match[1]))];
		},
		output,
		async stop() {
			child.kill('SIGTERM');
			await exited;
		},
		async kill() {
			child.kill('SIGKILL');
			await exited;
		},
	};
}
