import { randomUUID } from 'node:crypto';

import type { WorkflowJson } from './cli';
import { CREDENTIAL_TYPE, PACKAGE_NAME } from './paths';

/** Node types of this package and the n8n core nodes the tests use. */
export const NODE = {
	asset: `${PACKAGE_NAME}.stockroomAsset`,
	contract: `${PACKAGE_NAME}.stockroomContract`,
	user: `${PACKAGE_NAME}.stockroomUser`,
	trigger: `${PACKAGE_NAME}.stockroomTrigger`,
	manualTrigger: 'n8n-nodes-base.manualTrigger',
	code: 'n8n-nodes-base.code',
	noOp: 'n8n-nodes-base.noOp',
} as const;

const TYPE_VERSIONS: Record<string, number> = { [NODE.code]: 2 };

export interface NodeSpec {
	name: string;
	type: string;
	typeVersion?: number;
	parameters?: Record<string, unknown>;
	/** Default: the workflow's credential for this package's nodes, none for others. */
	credentials?: Record<string, CredentialRef>;
	/** Failures become error items (n8n's "On Error: Continue"). */
	continueOnFail?: boolean;
	/** A Webhook node's id for its production URL. */
	webhookId?: string;
}

export interface CredentialRef {
	id: string;
	name: string;
}

/** A resource locator value as the editor saves it. */
export const locator = (mode: 'list' | 'id' | 'externalId' | 'email', value: string) => ({
	__rl: true,
	mode,
	value,
});

/** A Code node that outputs the given items' JSON. */
export const jsonItems = (name: string, items: unknown[]): NodeSpec => ({
	name,
	type: NODE.code,
	parameters: { jsCode: `return ${JSON.stringify(items)}.map((json) => ({ json }));` },
});

/** A node of a workflow's JSON; this package's nodes get `credential` unless the spec names one. */
export function toNode(spec: NodeSpec, position: [number, number], credential: CredentialRef) {
	const ours = spec.type.startsWith(`${PACKAGE_NAME}.`);
	const credentials = spec.credentials ?? (ours ? { [CREDENTIAL_TYPE]: credential } : undefined);
	return {
		id: randomUUID(),
		name: spec.name,
		type: spec.type,
		typeVersion: spec.typeVersion ?? TYPE_VERSIONS[spec.type] ?? 1,
		position,
		parameters: spec.parameters ?? {},
		...(credentials ? { credentials } : {}),
		...(spec.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		...(spec.webhookId ? { webhookId: spec.webhookId } : {}),
	};
}

/**
 * One workflow whose nodes are chains ("branches"). With `start`, every branch hangs off one
 * Manual Trigger and n8n (execution order v1) runs the branches one after another, top to bottom,
 * so a later branch may use what an earlier one wrote. Without it, each branch starts with its
 * own trigger node. `settings` are the workflow's (e.g. `timezone`).
 */
export function buildWorkflow(
	name: string,
	credential: CredentialRef,
	branches: NodeSpec[][],
	{ start = true, settings = {} }: { start?: boolean; settings?: Record<string, unknown> } = {},
): WorkflowJson {
	const trigger: NodeSpec = { name: 'Start', type: NODE.manualTrigger };
	const nodes = start ? [toNode(trigger, [0, 0], credential)] : [];
	const connections: Record<string, { main: Array<Array<Record<string, unknown>>> }> = {};
	const connect = (from: string, to: string) => {
		connections[from] ??= { main: [[]] };
		connections[from].main[0].push({ node: to, type: 'main', index: 0 });
	};
	branches.forEach((branch, row) => {
		branch.forEach((spec, column) => {
			nodes.push(toNode(spec, [(column + 1) * 260, row * 200], credential));
			if (column > 0) connect(branch[column - 1].name, spec.name);
			else if (start) connect(trigger.name, spec.name);
		});
	});
	return { name, nodes, connections, settings: { executionOrder: 'v1', ...settings } };
}
