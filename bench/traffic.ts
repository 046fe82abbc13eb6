import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

import type { SandboxStats } from '../sandbox/server';

/** The sandbox's requests split into token requests and API calls. */
export function requestCounts(stats: SandboxStats): { api: number; token: number } {
	const token = Object.entries(stats.requests)
		.filter(([route]) => route.includes('/connect/token'))
		.reduce((sum, [, requests]) => sum + requests, 0);
	return { api: stats.totalRequests - token, token };
}

/**
 * How the client talks to the in-process sandbox, from Node's own diagnostics channels (no proxy
 * in the way): TCP connections opened, and the most open at once. n8n does not reuse connections,
 * so the most open at once is how many requests it had in flight together. This process serves
 * nothing else over HTTP.
 */
export class Traffic {
	private open = 0;
	private maxOpen = 0;
	private opened = 0;

	constructor() {
		subscribe('net.server.socket', (message) => {
			const { socket } = message as { socket: Socket };
			this.opened++;
			this.maxOpen = Math.max(this.maxOpen, ++this.open);
			socket.once('close', () => this.open--);
		});
	}

	reset(): void {
		this.maxOpen = this.open;
		this.opened = 0;
	}

	read(): { connections: number; maxOpenConnections: number } {
		return { connections: this.opened, maxOpenConnections: this.maxOpen };
	}
}
