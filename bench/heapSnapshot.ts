/**
 * Reads a V8 heap snapshot (`.heapsnapshot`, as `v8.writeHeapSnapshot` writes it) into a summary:
 * self size and count per constructor (objects by their constructor's name, everything else by
 * V8's node type), and for chosen constructors, who retains them (the retainer's constructor and
 * the edge's name), so that two snapshots can be compared constructor by constructor.
 */
import { readFileSync } from 'node:fs';

import { partOf } from './profile';

interface RawSnapshot {
	snapshot: {
		meta: {
			node_fields: string[];
			node_types: [string[], ...unknown[]];
			edge_fields: string[];
			edge_types: [string[], ...unknown[]];
		};
	};
	nodes: number[];
	edges: number[];
	strings: string[];
}

export interface ConstructorSize {
	name: string;
	count: number;
	selfBytes: number;
}

export interface HeapSummary {
	totalBytes: number;
	nodes: number;
	byConstructor: ConstructorSize[];
	/** For each constructor asked about: its retainers, largest first (bytes retained directly). */
	retainers: Record<string, ConstructorSize[]>;
}

export class HeapSnapshot {
	private readonly raw: RawSnapshot;
	private readonly nodeFieldCount: number;
	private readonly edgeFieldCount: number;
	private readonly groups: string[];
	/** Index of each node's first edge in `edges`. */
	private readonly firstEdge: Uint32Array;

	constructor(file: string) {
		this.raw = JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot;
		const { node_fields: nodeFields, edge_fields: edgeFields } = this.raw.snapshot.meta;
		this.nodeFieldCount = nodeFields.length;
		this.edgeFieldCount = edgeFields.length;
		const count = this.raw.nodes.length / this.nodeFieldCount;
		this.groups = new Array<string>(count);
		this.firstEdge = new Uint32Array(count + 1);
		const edgeCountField = nodeFields.indexOf('edge_count');
		for (let node = 0, edge = 0; node < count; node++) {
			this.firstEdge[node] = edge;
			edge += this.raw.nodes[node * this.nodeFieldCount + edgeCountField] * this.edgeFieldCount;
			this.groups[node] = this.groupOf(node);
		}
		this.firstEdge[count] = this.raw.edges.length;
	}

	private field(node: number, name: string): number {
		return this.raw.nodes[
			node * this.nodeFieldCount + this.raw.snapshot.meta.node_fields.indexOf(name)
		];
	}

	/** Objects by constructor name; strings, arrays, code and the rest by V8's type. */
	private groupOf(node: number): string {
		const type = this.raw.snapshot.meta.node_types[0][this.field(node, 'type')];
		const name = this.raw.strings[this.field(node, 'name')];
		if (type === 'object' || type === 'native') return name;
		if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
			return `(${type})`;
		if (type === 'array' || type === 'hidden') return `(${type}) ${name}`;
		return `(${type})`;
	}

	summarize(retainersOf: string[] = []): HeapSummary {
		const count = this.groups.length;
		const sizes = new Map<string, ConstructorSize>();
		let totalBytes = 0;
		for (let node = 0; node < count; node++) {
			const self = this.field(node, 'self_size');
			totalBytes += self;
			const entry = sizes.get(this.groups[node]) ?? {
				name: this.groups[node],
				count: 0,
				selfBytes: 0,
			};
			entry.count++;
			entry.selfBytes += self;
			sizes.set(entry.name, entry);
		}
		const retainers: HeapSummary['retainers'] = {};
		if (retainersOf.length) {
			const wanted = new Set(retainersOf);
			const { edge_fields: edgeFields, edge_types: edgeTypes } = this.raw.snapshot.meta;
			const typeField = edgeFields.indexOf('type');
			const nameField = edgeFields.indexOf('name_or_index');
			const toField = edgeFields.indexOf('to_node');
			const byGroup = new Map<string, Map<string, ConstructorSize>>();
			for (let from = 0; from < count; from++) {
				for (
					let edge = this.firstEdge[from];
					edge < this.firstEdge[from + 1];
					edge += this.edgeFieldCount
				) {
					const to = this.raw.edges[edge + toField] / this.nodeFieldCount;
					const group = this.groups[to];
					if (!wanted.has(group)) continue;
					const type = edgeTypes[0][this.raw.edges[edge + typeField]];
					if (type === 'weak') continue;
					const label =
						type === 'element' || type === 'hidden'
							? '[]'
							: String(this.raw.strings[this.raw.edges[edge + nameField]]);
					const key = `${this.groups[from]} .${label}`;
					const map = byGroup.get(group) ?? new Map<string, ConstructorSize>();
					const entry = map.get(key) ?? { name: key, count: 0, selfBytes: 0 };
					entry.count++;
					entry.selfBytes += this.field(to, 'self_size');
					map.set(key, entry);
					byGroup.set(group, map);
				}
			}
			for (const [group, map] of byGroup) {
				retainers[group] = [...map.values()].sort((a, b) => b.selfBytes - a.selfBytes).slice(0, 4);
			}
		}
		return {
			totalBytes,
			nodes: count,
			byConstructor: [...sizes.values()].sort((a, b) => b.selfBytes - a.selfBytes),
			retainers,
		};
	}
}

/** Constructors whose self size differs most between two snapshots (a − b), largest first. */
export function largestDifferences(a: HeapSummary, b: HeapSummary, top: number) {
	const names = new Set([...a.byConstructor, ...b.byConstructor].map((entry) => entry.name));
	const of = (summary: HeapSummary, name: string) =>
		summary.byConstructor.find((entry) => entry.name === name) ?? { name, count: 0, selfBytes: 0 };
	return [...names]
		.map((name) => ({ name, a: of(a, name), b: of(b, name) }))
		.sort(
			(x, y) => Math.abs(y.a.selfBytes - y.b.selfBytes) - Math.abs(x.a.selfBytes - x.b.selfBytes),
		)
		.slice(0, top);
}

interface SamplingNode {
	callFrame: { functionName: string; url: string; lineNumber: number };
	selfSize: number;
	children: SamplingNode[];
}

/** Bytes allocated during a run that outlived the young generation, by the function that did it. */
export interface AllocationSummary {
	totalBytes: number;
	parts: Array<{ part: string; bytes: number }>;
	functions: Array<{ name: string; part: string; bytes: number }>;
}

/**
 * Summarizes a sampling heap profile (`HeapProfiler.stopSampling`, objects collected by a major
 * collection included): what a run allocated beyond the young generation, live or garbage.
 */
export function summarizeAllocations(file: string, top = 12): AllocationSummary {
	const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: SamplingNode };
	const parts = new Map<string, number>();
	const functions = new Map<string, { name: string; part: string; bytes: number }>();
	let totalBytes = 0;
	const visit = (node: SamplingNode) => {
		const { functionName, url, lineNumber } = node.callFrame;
		const part = partOf(url, functionName) ?? 'the bench hook';
		if (node.selfSize) {
			totalBytes += node.selfSize;
			parts.set(part, (parts.get(part) ?? 0) + node.selfSize);
			const script = url.split('/').slice(-1)[0] ?? '';
			const name = `${functionName || '(anonymous)'}${script ? ` (${script}:${lineNumber + 1})` : ''}`;
			const entry = functions.get(name) ?? { name, part, bytes: 0 };
			entry.bytes += node.selfSize;
			functions.set(name, entry);
		}
		for (const child of node.children) visit(child);
	};
	visit(head);
	return {
		totalBytes,
		parts: [...parts].map(([part, bytes]) => ({ part, bytes })).sort((a, b) => b.bytes - a.bytes),
		functions: [...functions.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top),
	};
}
