import { spawn } from 'node:child_process';

import type { Sandbox } from '../sandbox/server';
import { median } from './stats';

/** What listing every asset costs at the least: no n8n, a plain loop over the same pages. */
export interface FloorFigures {
	/** Wall time of a pipelined `fetch` loop in its own Node process (n8n's Node), median. */
	fetchLoopMs: number;
	/** CPU time the sandbox (this process) spent serving those pages, median. */
	sandboxCpuMs: number;
	records: number;
	runs: number;
}

/**
 * Follows the pages from the first, parsing every body, and prints the records and the time. It
 * asks for the next page as soon as a page's headers name it (the `Link` header), as the Asset
 * node does: the least a client can take over these pages.
 */
const FETCH_LOOP = `
const [url, token] = process.argv.slice(1);
const get = (target) => fetch(target, { headers: { authorization: 'Bearer ' + token } });
(async () => {
	const started = performance.now();
	let pending = get(url + '/api/assets/v1?limit=1000');
	let records = 0;
	while (pending) {
		const response = await pending;
		if (!response.ok) throw new Error(response.url + ' answered ' + response.status);
		const next = /<([^>]*)>;\\s*rel="next"/.exec(response.headers.get('link') || '');
		pending = next ? get(next[1]) : undefined;
		const page = await response.json();
		records += page.results.length;
	}
	console.log(JSON.stringify({ records, ms: performance.now() - started }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/**
 * Runs `script` in a Node process of its own (this Node, n8n's) with `args`, and gives the JSON
 * it prints: a floor measured without n8n, apart from the sandbox in this process.
 */
export async function runFloorScript<T>(name: string, script: string, args: string[]): Promise<T> {
	const child = spawn(process.execPath, ['-e', script, ...args], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let output = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`the ${name} exited ${code}`);
	return JSON.parse(output) as T;
}

const fetchLoop = async (sandbox: Sandbox) =>
	await runFloorScript<{ records: number; ms: number }>('fetch loop', FETCH_LOOP, [
		sandbox.url,
		sandbox.token(),
	]);

/** One warm-up, then `runs` walks of every asset by a plain fetch loop. */
export async function floorFigures(sandbox: Sandbox, runs: number): Promise<FloorFigures> {
	await fetchLoop(sandbox);
	const walls: number[] = [];
	const serving: number[] = [];
	for (let run = 0; run < runs; run++) {
		const before = process.cpuUsage();
		const { records, ms } = await fetchLoop(sandbox);
		const cpu = process.cpuUsage(before);
		if (records !== sandbox.store.assets.size) {
			throw new Error(`the fetch loop read ${records} of ${sandbox.store.assets.size} assets`);
		}
		walls.push(ms);
		serving.push((cpu.user + cpu.system) / 1000);
	}
	return {
		fetchLoopMs: median(walls),
		sandboxCpuMs: median(serving),
		records: sandbox.store.assets.size,
		runs,
	};
}
