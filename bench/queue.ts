import { sandboxCredentialInput } from '../sandbox/credential';
import type { Sandbox } from '../sandbox/server';
import {
	createN8nHome,
	CREDENTIAL_TYPE,
	HarnessError,
	waitFor,
	type N8nHome,
	type WorkflowJson,
} from '../scripts/n8n';
import { median } from './stats';
import { assetList, assetUpsert } from './workflows';

/** One workflow run by a worker of n8n in queue mode, called through main's production webhook. */
export interface QueueRunFigure {
	wallMs: number;
	/** The worker whose log shows the execution. */
	worker: string;
}

export interface QueueFigures {
	listAll: QueueRunFigure[];
	upserts: QueueRunFigure[];
}

/** Saves and publishes a workflow on main; returns its production webhook URL. */
async function deploy(home: N8nHome, workflow: WorkflowJson): Promise<string> {
	const { rest, url } = home.queue!.main!;
	const saved = await rest.request<{ id: string; versionId: string }>(
		'POST',
		'/rest/workflows',
		workflow,
	);
	await rest.request('POST', `/rest/workflows/${saved.id}/activate`, {
		versionId: saved.versionId,
	});
	const trigger = workflow.nodes.find(
		(node) => (node as { type: string }).type === 'n8n-nodes-base.webhook',
	) as { parameters: { path: string } };
	const webhookPath = trigger.parameters.path;
	await waitFor(
		`n8n to register the webhook ${webhookPath}`,
		() =>
			home.queue!.services.query(
				`SELECT 1 FROM webhook_entity WHERE "webhookPath" = '${webhookPath}' AND method = 'POST'`,
			).length
				? true
				: undefined,
		30_000,
		100,
	);
	return `${url}/webhook/${webhookPath}`;
}

async function runOnWorker(
	home: N8nHome,
	webhookUrl: string,
	expectedCount: number,
	body: unknown = {},
): Promise<QueueRunFigure> {
	// executions are not saved (as in the single-process bench): the workers' logs say who ran it
	const startedBy = () =>
		home.queue!.workers.map((worker) => ({ worker, started: worker.startedExecutions().length }));
	const before = startedBy();
	const started = performance.now();
	const response = await fetch(webhookUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const answer = (await response.json()) as { count_id?: number };
	const wallMs = performance.now() - started;
	if (!response.ok || answer.count_id !== expectedCount) {
		throw new HarnessError(`${webhookUrl}: ${response.status} ${JSON.stringify(answer)}`);
	}
	const ranOn = await waitFor(
		"the worker's log of the execution",
		() =>
			startedBy().find(({ worker, started: now }) => {
				const then = before.find((entry) => entry.worker === worker)?.started ?? 0;
				return now > then;
			})?.worker.name,
		30_000,
		100,
	);
	return { wallMs, worker: ranOn };
}

/**
 * The list-all and upsert workflows of the single-process comparison, run by the workers of n8n
 * in queue mode (Redis, Postgres, a main and two workers): one warm-up, then `runs` runs each.
 */
export async function queueFigures(
	sandbox: Sandbox,
	upsertBody: { items: unknown[] },
	runs: number,
): Promise<QueueFigures> {
	const home = await createN8nHome({
		queue: true,
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' },
	});
	try {
		const main = await home.start();
		const id = await main.rest.createCredential({
			name: 'Stockroom sandbox',
			type: CREDENTIAL_TYPE,
			data: sandboxCredentialInput(sandbox),
		});
		const credential = { id, name: 'Stockroom sandbox' };
		const listAll = await deploy(home, assetList('queue-list-asset', credential));
		const upsert = await deploy(home, assetUpsert('queue-upsert-asset', credential));
		const figures: QueueFigures = { listAll: [], upserts: [] };
		for (let run = 0; run <= runs; run++) {
			const list = await runOnWorker(home, listAll, sandbox.store.assets.size);
			const write = await runOnWorker(home, upsert, upsertBody.items.length, upsertBody);
			if (run > 0) {
				figures.listAll.push(list);
				figures.upserts.push(write);
			}
		}
		return figures;
	} finally {
		await home.dispose();
	}
}

export const medianWall = (runs: QueueRunFigure[]) => median(runs.map((run) => run.wallMs));
