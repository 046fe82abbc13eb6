/**
 * What a real service may send, measured (issue 32): how many sweeps bring the trigger's state
 * back after a mass deletion, and what a pretty-printed page costs the list parser per byte as it
 * grows. In a process of its own: the trigger runs in n8n-core's real poll context, whose
 * expression engine the trigger section disposes of, and 100,000 assets held here would weigh on
 * the sections after it.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

import { Expression, type IDataObject } from 'n8n-workflow';

import { StockroomTrigger } from '../nodes/StockroomTrigger/StockroomTrigger.node';
import type { ChangeState } from '../nodes/StockroomTrigger/changes';
import { parseListBody } from '../nodes/shared/transport/listBody';
import { createSandbox } from '../sandbox/server';
import { median } from './stats';

const RECORDS = 100_000;
const DELETED = 50_000;
const MINUTE = 60_000;
const MB = 1024 * 1024;

/** The final lines of this measurement, from a child process (`progress` gets its messages). */
export async function resilienceLines(progress: (message: string) => void): Promise<string[]> {
	progress('resilience: a mass deletion the sweeps recover from, pretty-printed pages');
	const child = spawn(process.execPath, ['--max-semi-space-size=4', __filename], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`the resilience bench exited with ${code}`);
	return JSON.parse(output) as string[];
}

const size = (state: IDataObject) => JSON.stringify(state).length;

/**
 * Activates Asset Synced on a sandbox of RECORDS assets, deletes DELETED of them (every other
 * one, so from all over the id range), then polls a minute apart on the service's clock from
 * half a day later until the sweeps have forgotten every deleted asset: the sweeps that took,
 * and the state's size then beside a fresh activation's on the same assets.
 */
async function massDeletion(): Promise<{ sweeps: number; stateBytes: number; freshBytes: number }> {
	const { runPoll, sandboxCredential } = await import('../test/helpers/n8n');
	const trigger = new StockroomTrigger();
	const sandbox = await createSandbox({ records: RECORDS });
	try {
		let now = Date.now();
		sandbox.setClock(() => new Date(now));
		const credential = sandboxCredential(sandbox);
		const poll = (staticData: IDataObject) =>
			runPoll(trigger, {
				parameters: { resource: 'assets', event: 'assetSynced' },
				credential,
				staticData,
			});
		const staticData: IDataObject = {};
		await poll(staticData);
		const changes = () => staticData.changes as unknown as ChangeState;
		const remembered = changes().memory.count;
		let index = 0;
		sandbox.store.assets.deleteWhere(() => index++ % (RECORDS / DELETED) === 0);
		now += 13 * 60 * MINUTE;
		let sweeps = 0;
		const back = () => {
			const { sweep, memory } = changes();
			return !sweep?.tally && !sweep?.share && memory.count < remembered;
		};
		// a sweep of the 50,000 left takes 13 polls: 1,000 polls is over 70 sweeps
		for (let polls = 0; polls < 1000 && !back(); polls++) {
			const began = changes().sweep?.began;
			now += MINUTE;
			await poll(staticData);
			if (changes().sweep?.began !== began) sweeps++;
		}
		const fresh: IDataObject = {};
		await poll(fresh);
		const [stateBytes, freshBytes] = [size(staticData), size(fresh)];
		progress(`${sweeps} sweeps; ${changes().memory.count} of ${remembered} assets remembered`);
		if (!back() || stateBytes > freshBytes * 1.1)
			throw new Error(
				`the state is not back after ${sweeps} sweeps: ${stateBytes} bytes, a fresh activation's ${freshBytes}`,
			);
		return { sweeps, stateBytes, freshBytes };
	} finally {
		await sandbox.close();
	}
}

/** A pretty-printed page of the sandbox's assets (no `},{` anywhere) of at least `bytes`. */
function prettyPage(records: readonly IDataObject[], bytes: number): Uint8Array {
	const results: IDataObject[] = [];
	let length = 0;
	for (const record of records) {
		if (length >= bytes) break;
		results.push(record);
		// as it is printed in the page: each line indented 4 more, then a comma and a line break
		const text = JSON.stringify(record, null, 2);
		length += text.length + 4 * text.split('\n').length + 2;
	}
	const next = 'https://stockroom.example.com/api/assets/v1?limit=1000&after=abc';
	return new Uint8Array(Buffer.from(JSON.stringify({ results, next }, null, 2)));
}

/** The parser's median time per byte on a page, over `repetitions` reads. */
function parseCost(page: Uint8Array, repetitions: number): number {
	const times: number[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		const started = performance.now();
		const body = parseListBody(page);
		times.push(performance.now() - started);
		if (typeof body === 'string') throw new Error('the pretty-printed page did not read as a list');
	}
	return median(times) / page.length;
}

/** Per byte, what a 9.5 MB pretty-printed page costs the parser beside a 1.2 MB one. */
async function prettyParserRatio(): Promise<{ small: number; large: number; ratio: number }> {
	const sandbox = await createSandbox({ records: 12_000 });
	const records = sandbox.store.assets.all() as unknown as IDataObject[];
	await sandbox.close();
	const small = prettyPage(records, 1.2 * MB);
	const large = prettyPage(records, 9.5 * MB);
	// warm up, then alternate so both meet the same load
	parseCost(small, 3);
	const smallCosts: number[] = [];
	const largeCosts: number[] = [];
	for (let round = 0; round < 5; round++) {
		smallCosts.push(parseCost(small, 8));
		largeCosts.push(parseCost(large, 1));
	}
	const [perByteSmall, perByteLarge] = [median(smallCosts), median(largeCosts)];
	progress(
		`parser: ${(small.length / MB).toFixed(1)} MB at ${(perByteSmall * 1e6).toFixed(1)} ns/byte, ` +
			`${(large.length / MB).toFixed(1)} MB at ${(perByteLarge * 1e6).toFixed(1)} ns/byte`,
	);
	return { small: small.length, large: large.length, ratio: perByteLarge / perByteSmall };
}

function progress(message: string): void {
	process.stderr.write(`[bench] resilience: ${message}\n`);
}

async function main(): Promise<void> {
	const parser = await prettyParserRatio();
	const deletion = await massDeletion();
	const lines = [
		`trigger state after deleting ${DELETED.toLocaleString('en-US')} of ${RECORDS.toLocaleString('en-US')} assets, sweeps until back (count): ${deletion.sweeps}`,
		`trigger state after deleting ${DELETED.toLocaleString('en-US')} of ${RECORDS.toLocaleString('en-US')} assets / a fresh activation's (MB): ${(deletion.stateBytes / 1e6).toFixed(2)} / ${(deletion.freshBytes / 1e6).toFixed(2)}`,
		`list parser pretty-printed cost ratio (9.5 MB / 1.2 MB per byte): ${parser.ratio.toFixed(2)}`,
	];
	process.stdout.write(JSON.stringify(lines));
}

if (require.main === module) {
	main()
		.then(async () => {
			// what the poll helper set up outside jest: its isolate would keep this process alive
			await Expression.disposeExpressionEngine();
			const { Container } = await import('@n8n/di');
			const { InstanceSettings } = await import('n8n-core');
			const folder = Container.get(InstanceSettings).n8nFolder;
			if (path.basename(folder).startsWith('stockroom-jest-n8n-')) {
				rmSync(folder, { recursive: true, force: true });
			}
			process.exit(0);
		})
		.catch((error: unknown) => {
			process.stderr.write(
				`[bench] resilience failed: ${(error as Error).stack ?? String(error)}\n`,
			);
			process.exit(1);
		});
}
