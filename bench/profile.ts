import { readFileSync } from 'node:fs';

/** A V8 CPU profile as `Profiler.stop` gives it (`.cpuprofile`). */
interface CpuProfile {
	nodes: Array<{
		id: number;
		callFrame: { functionName: string; url: string; lineNumber: number };
	}>;
	samples: number[];
	timeDeltas: number[];
}

/** Where the n8n process spent its time during one run, by self time. */
export interface ProfileSummary {
	totalMs: number;
	/** Self time per part of the stack (this package, n8n-core, Node's HTTP client, GC, ...). */
	parts: Array<{ part: string; ms: number }>;
	/** The functions with the most self time. */
	functions: Array<{ name: string; part: string; ms: number }>;
}

/** Which part of the stack a frame belongs to, from its script's URL. */
export function partOf(url: string, functionName: string): string | undefined {
	// the profiler's own calls from the bench hook are not n8n's time
	if (url === 'node:inspector') return undefined;
	if (!url) {
		if (functionName === '(garbage collector)') return 'garbage collection';
		if (functionName === '(idle)') return 'idle (waiting for I/O)';
		return 'V8 and native code';
	}
	const module = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
	if (module) return module[1] === 'n8n-nodes-stockroom' ? 'this package' : module[1];
	if (url.startsWith('node:')) {
		return /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net))/.test(url)
			? "Node's HTTP, sockets and streams"
			: 'Node.js core';
	}
	return 'other';
}

export function summarizeProfile(file: string, top = 12): ProfileSummary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
	const selfUs = new Map<number, number>();
	profile.samples.forEach((id, index) => {
		selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
	});
	const parts = new Map<string, number>();
	const functions = new Map<string, { name: string; part: string; us: number }>();
	let totalUs = 0;
	for (const [id, us] of selfUs) {
		const frame = byId.get(id)!;
		const part = partOf(frame.url, frame.functionName);
		if (part === undefined) continue;
		totalUs += us;
		parts.set(part, (parts.get(part) ?? 0) + us);
		const file = frame.url.split('/').slice(-1)[0] ?? '';
		const name = `${frame.functionName || '(anonymous)'}${file ? ` (${file}:${frame.lineNumber + 1})` : ''}`;
		const entry = functions.get(name) ?? { name, part, us: 0 };
		entry.us += us;
		functions.set(name, entry);
	}
	return {
		totalMs: totalUs / 1000,
		parts: [...parts].map(([part, us]) => ({ part, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
		functions: [...functions.values()]
			.sort((a, b) => b.us - a.us)
			.slice(0, top)
			.map(({ name, part, us }) => ({ name, part, ms: us / 1000 })),
	};
}
