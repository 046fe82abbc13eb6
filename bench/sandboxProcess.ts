/**
 * `npm run sandbox -- --records N` in a process of its own, so that its memory is measured alone:
 * the in-process sandbox shares its heap with the bench, its HTTP client and the parsed pages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import type { CredentialInput } from '../sandbox/credential';
import { repoRoot } from '../scripts/n8n';
import { readStatus } from './proc';

const LISTENING = /listening on (\S+) \(client id: (\S+), client secret: (\S+)\)/;

export class SandboxProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly url: string,
		private readonly client: { id: string; secret: string },
		/** From spawn to listening: Node's start, seeding and binding the port. */
		readonly startMs: number,
	) {}

	/** Starts the sandbox CLI as `npm run sandbox` does (build/ must be current). */
	static start(records: number): Promise<SandboxProcess> {
		const cli = path.join(repoRoot, 'build', 'sandbox', 'cli.js');
		const args = ['--max-semi-space-size=4', cli, '--port', '0', '--records', String(records)];
		const started = performance.now();
		const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
		return new Promise((resolve, reject) => {
			let output = '';
			const collect = (chunk: Buffer) => {
				output += chunk.toString();
				const match = LISTENING.exec(output);
				if (!match) return;
				child.stdout?.off('data', collect);
				const [, url, id, secret] = match;
				resolve(new SandboxProcess(child, url, { id, secret }, performance.now() - started));
			};
			child.stdout?.on('data', collect);
			child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
			child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}): ${output}`)));
		});
	}

	/** The Stockroom credential for the sandbox's default client. */
	credentialInput(): CredentialInput {
		return { baseUrl: this.url, clientId: this.client.id, clientSecret: this.client.secret };
	}

	/** An access token for the sandbox's default client, as any OAuth2 client gets one. */
	async token(): Promise<string> {
		const basic = Buffer.from(`${this.client.id}:${this.client.secret}`).toString('base64');
		const response = await fetch(`${this.url}/connect/token`, {
			method: 'POST',
			headers: {
				authorization: `Basic ${basic}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: 'grant_type=client_credentials',
		});
		if (!response.ok) throw new Error(`the token endpoint answered ${response.status}`);
		return ((await response.json()) as { access_token: string }).access_token;
	}

	/** The most memory the process has held so far (VmHWM). */
	peakRssBytes(): number {
		return readStatus(this.child.pid!, 'VmHWM');
	}

	stop(): Promise<void> {
		return new Promise((resolve) => {
			if (this.child.exitCode !== null) return resolve();
			this.child.removeAllListeners('exit');
			this.child.once('exit', () => resolve());
			this.child.kill('SIGTERM');
		});
	}
}
