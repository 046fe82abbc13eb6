/**
 * `npm run sandbox`: the sandbox (a local, faithful implementation of the service) as a process
 * of its own; README's section "The sandbox" lists its options. `server.ts` starts one in-process.
 */
import { parseArgs } from 'node:util';
import { parseFaults } from './faults';
import {
	createSandbox,
	DEFAULT_CLIENT_ID,
	DEFAULT_CLIENT_SECRET,
	type SandboxOptions,
} from './server';
import { DEMO_ASSETS } from './seed';

const USAGE = `Usage: npm run sandbox -- [flags]

Runs a local Stockroom service: token endpoint, assets, contracts, SCIM users.

  --port <n>              port to listen on (default 8787; 0 picks a free port)
  --host <addr>           address to listen on (default 127.0.0.1)
  --client-id <id>        client registered with every scope (default ${DEFAULT_CLIENT_ID})
  --client-secret <s>     its secret (default ${DEFAULT_CLIENT_SECRET})
  --records <n>           seed n assets, about n/5 contracts, and users (default ${DEMO_ASSETS})
  --seed <n>              makes the data and the faults repeatable (default 1)
  --token-ttl <seconds>   lifetime of access tokens (default 3600)
  --cursor-ttl <seconds>  lifetime of next links' cursors (default: for ever)
  --faults <spec>         comma-separated kind:rate, kinds 429 500 502 503 504 reset cut
                          slow hang maintenance shape truncated empty short unordered
                          cutoff null-next dates (reset: dropped before answering; cut:
                          carried out, answer dropped half-way; hang: no answer at all;
                          maintenance: a gateway's HTML page, status 200; shape: JSON of
                          another shape, 200; truncated: carried out, its JSON cut short
                          but sent whole; empty: a list page with no records and a next
                          link; short: half a list page and a next link; unordered: a
                          list page in descending id order; cutoff: {"results": []}
                          where the list goes on; null-next: "next": null on a last
                          page; dates: dates and date-times in other ISO 8601 forms), e.g.
                          429:0.1,503:0.05,reset:0.02,maintenance:0.01 (API calls only)
  --data <file>           keep state in this file (loaded at start if it exists, then
                          the seeding flags are ignored)
  --latency <ms>          wait this long before every answer, as a remote service would
  --bandwidth <mbit>      send answers over one shared link of this many megabits per second
  --compression <on|off>  gzip answers for clients that ask for it (default on)
  --help                  show this help
`;

/** A usage error: the message, then the usage, exit code 2. */
class UsageError extends Error {}

function integer(
	name: string,
	text: string | undefined,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): number | undefined {
	if (text === undefined) return undefined;
	if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
		throw new UsageError(`--${name} expects a whole number from ${min} to ${max}, got '${text}'`);
	}
	return Number(text);
}

function parseFlags(args: string[]): SandboxOptions | 'help' {
	let values;
	try {
		({ values } = parseArgs({
			args,
			strict: true,
			allowPositionals: false,
			options: {
				port: { type: 'string' },
				host: { type: 'string' },
				'client-id': { type: 'string' },
				'client-secret': { type: 'string' },
				records: { type: 'string' },
				seed: { type: 'string' },
				'token-ttl': { type: 'string' },
				'cursor-ttl': { type: 'string' },
				faults: { type: 'string' },
				data: { type: 'string' },
				latency: { type: 'string' },
				bandwidth: { type: 'string' },
				compression: { type: 'string' },
				help: { type: 'boolean' },
			},
		}));
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
	if (values.help) return 'help';
	if (values.faults !== undefined) {
		try {
			parseFaults(values.faults);
		} catch (error) {
			throw new UsageError(`--faults: ${(error as Error).message}`);
		}
	}
	if (values.compression !== undefined && !['on', 'off'].includes(values.compression)) {
		throw new UsageError(`--compression expects on or off, got '${values.compression}'`);
	}
	for (const name of ['client-id', 'client-secret', 'host', 'data'] as const) {
		if (values[name] === '') throw new UsageError(`--${name} must not be empty`);
	}
	return {
		port: integer('port', values.port, 0, 65535) ?? 8787,
		host: values.host ?? '127.0.0.1',
		clientId: values['client-id'],
		clientSecret: values['client-secret'],
		records: integer('records', values.records, 0),
		seed: integer('seed', values.seed, 0, 0xffffffff),
		tokenTtl: integer('token-ttl', values['token-ttl'], 1),
		cursorTtl: integer('cursor-ttl', values['cursor-ttl'], 1),
		faults: values.faults,
		dataFile: values.data,
		network: {
			latencyMs: integer('latency', values.latency, 0, 60_000),
			bandwidthMbit: integer('bandwidth', values.bandwidth, 1, 100_000),
			compression: values.compression !== 'off',
		},
	};
}

async function main(): Promise<void> {
	let options: SandboxOptions | 'help';
	try {
		options = parseFlags(process.argv.slice(2));
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
	if (options === 'help') {
		process.stdout.write(USAGE);
		return;
	}
	const sandbox = await createSandbox({
		...options,
		log: (message) => process.stderr.write(`${message}\n`),
	}).catch((error: Error) => {
		process.stderr.write(`Stockroom sandbox could not start: ${error.message}\n`);
		process.exit(1);
	});
	let stopping = false;
	const stop = () => {
		if (stopping) return;
		stopping = true;
		sandbox.close().then(
			() => process.exit(0),
			(error: Error) => {
				process.stderr.write(`Stockroom sandbox could not save its data: ${error.message}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	const { id, secret } = sandbox.client;
	process.stdout.write(
		`Stockroom sandbox listening on ${sandbox.url} (client id: ${id}, client secret: ${secret})\n`,
	);
}

void main();
