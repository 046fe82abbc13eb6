import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openChildLog } from '../../../scripts/n8n/childLog';
import { freePort } from '../../../scripts/n8n/net';

describe('the harness and the processes it starts', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'stockroom-harness-'))));
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	// queue mode tells which worker ran an execution from the worker's "started" line; a run that
	// failed fast was seen finished in the database before a pipe had delivered that line (CI)
	it('has what a child wrote before an event seen elsewhere, without waiting for our event loop', async () => {
		const log = openChildLog(dir, 'child');
		const flag = path.join(dir, 'flag');
		const child = spawn(
			process.execPath,
			[
				'-e',
				`process.stdout.write('Worker started execution 7\\n');
				require('node:fs').writeFileSync(${JSON.stringify(flag)}, '');
				process.stderr.write('and its errors');
				setTimeout(() => undefined, 2000);`,
			],
			{ stdio: log.stdio },
		);
		log.spawned();
		const exited = new Promise((resolve) => child.once('exit', resolve));
		// our event loop stays blocked from before the child starts writing until we look
		const started = Date.now();
		while (!existsSync(flag) && Date.now() - started < 10_000);
		expect(log.text()).toContain('Worker started execution 7\n');
		await exited;
		expect(log.text()).toBe('Worker started execution 7\nand its errors');
	});

	// the OS offers a port again as soon as the probe that found it closes; n8n's port and its
	// task broker's came out the same once (CI: "Task Broker's port ... is already in use")
	it('never hands out the same free port twice', async () => {
		const ports: number[] = [];
		for (let i = 0; i < 1000; i++) ports.push(await freePort());
		expect(new Set(ports).size).toBe(ports.length);
	});
});
