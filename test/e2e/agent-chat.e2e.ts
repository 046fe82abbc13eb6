import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	N8N_BEFORE_1_100,
	N8N_MAJOR,
	NODE,
	toNode,
	type N8nHome,
	type WorkflowJson,
} from '../../scripts/n8n';
import { assetMainFields } from './simplified';
import { startScriptedChatModel, type ScriptedChatModel } from './scriptedChatModel';

/**
 * The nodes as tools of n8n's own AI Agent, in its real loop: the agent offers the tools to a
 * chat model, runs the one the model calls with the arguments the model chose for each
 * `$fromAI()` parameter, and hands the tool's answer back. The model is scripted
 * (scriptedChatModel.ts, reached through n8n's OpenAI Chat Model node), so the test decides the
 * call and reads exactly what the agent would have read. Runs on every n8n of the matrix, the
 * 1.85 floor included (agent-tool.e2e.ts drives the tools through n8n 1.100+'s Tool Executor).
 */
const CREDENTIAL = { id: 'stockroomAgentChat', name: 'Stockroom' };
const OPENAI_CREDENTIAL = { id: 'scriptedOpenAiModel', name: 'Scripted model' };
const fromAI = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;

const TOOLS = {
	findAssets: {
		name: 'Find assets',
		type: `${NODE.asset}Tool`,
		parameters: {
			operation: 'getAll',
			filterMode: 'expression',
			filterExpression: fromAI(
				'filter',
				'A Stockroom filter expression, e.g. status eq "Deployed"',
			),
			limit: fromAI('limit', 'How many assets at most', 'number'),
		},
	},
	contractByExternalId: {
		name: 'Contract by external ID',
		type: `${NODE.contract}Tool`,
		parameters: {
			operation: 'get',
			simplify: false,
			contract: {
				__rl: true,
				mode: 'externalId',
				value: fromAI('externalId', 'The contract’s External ID'),
			},
		},
	},
} as const;
const toolName = (tool: { name: string }) => tool.name.replaceAll(' ', '_');

/** Start → Agent, with the scripted model and the Stockroom tools attached to it. */
function agentWorkflow(modelUrl: string): WorkflowJson {
	const tools = Object.values(TOOLS);
	const agent = {
		name: 'Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		// 1.8 is the newest on n8n 1.85; 3 on 1.100+ and 2.x
		typeVersion: N8N_BEFORE_1_100 ? 1.8 : 3,
		parameters: {
			...(N8N_BEFORE_1_100 ? { agent: 'toolsAgent' } : {}),
			promptType: 'define',
			text: 'Answer from Stockroom',
		},
	};
	const model = {
		name: 'Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		parameters: {
			model: { __rl: true, mode: 'id', value: 'scripted' },
			options: { baseURL: modelUrl },
		},
		credentials: { openAiApi: OPENAI_CREDENTIAL },
	};
	return {
		name: 'An agent with Stockroom tools and a scripted model',
		nodes: [
			toNode({ name: 'Start', type: NODE.manualTrigger }, [0, 0], CREDENTIAL),
			toNode(agent, [260, 0], CREDENTIAL),
			toNode(model, [200, 220], CREDENTIAL),
			...tools.map((tool, index) => toNode(tool, [360 + index * 160, 220], CREDENTIAL)),
		],
		connections: {
			Start: { main: [[{ node: agent.name, type: 'main', index: 0 }]] },
			[model.name]: {
				ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				tools.map((tool) => [
					tool.name,
					{ ai_tool: [[{ node: agent.name, type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
		settings: { executionOrder: 'v1' },
	};
}

describe('the nodes as tools of n8n’s AI Agent, with a scripted chat model', () => {
	let sandbox: Sandbox;
	let model: ScriptedChatModel;
	let home: N8nHome;
	let workflowId: string;

	/** Runs the agent once, the model calling `tool` with `args`; returns the tool's answer. */
	async function agentCalls(tool: { name: string }, args: IDataObject): Promise<string> {
		const before = model.toolAnswers().length;
		model.callNext({ tool: toolName(tool), args });
		const run = await home.executeWorkflow(workflowId);
		expect(run.error).toBeUndefined();
		expect(run.status).toBe('success');
		// the agent finished with the model's last word, after handing it the tool's answer
		expect(run.outputs.Agent).toEqual([{ output: 'Done.' }]);
		const answers = model.toolAnswers();
		expect(answers).toHaveLength(before + 1);
		return answers[before];
	}

	beforeAll(async () => {
		[sandbox, model, home] = await Promise.all([
			createSandbox({ records: 300 }),
			startScriptedChatModel(),
			createN8nHome(),
		]);
		await home.importCredential({ ...CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await home.importOtherCredential({
			...OPENAI_CREDENTIAL,
			type: 'openAiApi',
			data: { apiKey: 'not-a-real-key', url: model.baseUrl },
		});
		workflowId = await home.importWorkflow(agentWorkflow(model.baseUrl));
	});

	afterAll(async () => {
		await home?.dispose();
		await model?.close();
		await sandbox?.close();
	});

	beforeEach(() => sandbox.resetStats());

	test('the agent lists assets with a filter and a limit the model chose (simplified by default on n8n 1.100+)', async () => {
		const filter = 'status eq "Deployed" and hardwareVendor eq "Apple"';
		const expected = sandbox.store.assets
			.all()
			.filter((record) => record.status === 'Deployed' && record.hardwareVendor === 'Apple')
			.slice(0, 3);
		expect(expected).toHaveLength(3);

		const answer = await agentCalls(TOOLS.findAssets, { filter, limit: 3 });

		const records = JSON.parse(JSON.stringify(expected)) as IDataObject[];
		// n8n before 1.100 cannot tell a tool from its node: Simplify is off there as in the node
		expect(JSON.parse(answer)).toEqual(N8N_BEFORE_1_100 ? records : records.map(assetMainFields));
		const lists = sandbox.journal().filter((call) => call.path === '/api/assets/v1');
		expect(lists.map((call) => call.query.filter)).toEqual([filter]);
		// what the model was offered: each tool, with the parameters its $fromAI() calls name
		const offered = model.offeredTools() as Record<string, { properties?: object }>;
		expect(Object.keys(offered).sort()).toEqual(
			[toolName(TOOLS.contractByExternalId), toolName(TOOLS.findAssets)].sort(),
		);
		expect(Object.keys(offered[toolName(TOOLS.findAssets)].properties ?? {}).sort()).toEqual([
			'filter',
			'limit',
		]);
	});

	test('a filter the model got wrong: what was wrong and what to do, before any request', async () => {
		const expected = `Filter Expression, column 1: "InStock" is not a value of 'status' (expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired) [item 0]. Correct the node's Filter Expression parameter.`;
		const args = { filter: 'status eq "InStock"', limit: 5 };

		if (N8N_MAJOR === 1 && !N8N_BEFORE_1_100) {
			// n8n 1.100 to 1.123 stop the agent's run at a tool's error (README: AI agents)
			model.callNext({ tool: toolName(TOOLS.findAssets), args });
			const run = await home.executeWorkflow(workflowId);
			expect(run.status).toBe('error');
			expect(run.error).toEqual({
				message: expected,
				description: expected,
				node: TOOLS.findAssets.name,
			});
		} else {
			// the model reads the error and may correct itself: n8n before 1.100 hands it
			// "Error during node execution: " and the error's description, n8n 2.x `[{"error": message}]`
			const answer = await agentCalls(TOOLS.findAssets, args);
			const text = N8N_BEFORE_1_100
				? answer.replace(/^Error during node execution: /, '')
				: (JSON.parse(answer) as Array<{ error: string }>)[0].error;
			expect(text).toBe(expected);
		}
		expect(sandbox.journal().filter((call) => call.path.startsWith('/api/'))).toEqual([]);
	});

	test('the agent gets a contract by the External ID the model gave, whole with Simplify off', async () => {
		const contract = sandbox.store.contracts.all()[3];
		expect(typeof contract.externalId).toBe('string');

		const answer = await agentCalls(TOOLS.contractByExternalId, {
			externalId: contract.externalId as string,
		});

		expect(JSON.parse(answer)).toEqual([JSON.parse(JSON.stringify(contract))]);
	});
});
