import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	N8N_MAJOR,
	NODE,
	toNode,
	type N8nHome,
	type N8nServer,
	type StoredExecution,
	type WorkflowJson,
} from '../../scripts/n8n';
import { assetMainFields } from './simplified';

/**
 * The nodes as an AI agent's tools (`usableAsTool`): n8n offers a tool variant of each, and runs
 * it as an agent would, through its Tool Executor, with the arguments the agent chose for each
 * `$fromAI()` parameter. No language model is involved: the test plays the agent.
 */
const AGENT = '@n8n/n8n-nodes-langchain.agent';
/** The node n8n puts in the agent's place to run a tool on its own. */
const TOOL_EXECUTOR = 'PartialExecutionToolExecutor';
const CREDENTIAL = { id: 'stockroomAgentE2e', name: 'Stockroom' };
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
			// the whole record, though tools simplify by default
			simplify: false,
			contract: {
				__rl: true,
				mode: 'externalId',
				value: fromAI('externalId', 'The contract’s External ID'),
			},
		},
	},
} as const;

/** Start → Agent, with each tool attached to the agent (an `ai_tool` connection). */
function agentWorkflow(): WorkflowJson {
	const tools = Object.values(TOOLS);
	const agent = {
		name: 'Agent',
		type: AGENT,
		// version 3 of the agent is on n8n 1.123 and 2.x alike
		typeVersion: 3,
		parameters: { promptType: 'define', text: 'Answer from Stockroom' },
	};
	return {
		name: 'An agent with Stockroom tools',
		nodes: [
			toNode({ name: 'Start', type: NODE.manualTrigger }, [0, 0], CREDENTIAL),
			toNode(agent, [260, 0], CREDENTIAL),
			...tools.map((tool, index) => toNode(tool, [200 + index * 160, 220], CREDENTIAL)),
		],
		connections: {
			Start: { main: [[{ node: agent.name, type: 'main', index: 0 }]] },
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

describe('the nodes as an AI agent’s tools in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer;
	let workflowId: string;

	/** The tool's answer when the agent calls `tool` with `args`, as n8n's "test tool" runs it. */
	async function callTool(tool: { name: string }, args: IDataObject): Promise<StoredExecution> {
		const toolName = tool.name.replaceAll(' ', '_');
		const { executionId } = await server.rest.request<{ executionId: string }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{
				// n8n 1.x runs the workflow it is sent, 2.x the saved one
				workflowData: await server.rest.workflow(workflowId),
				destinationNode: { nodeName: tool.name, mode: 'inclusive' },
				// n8n 2.x's Tool Executor takes each tool's arguments under its name, 1.x takes them as they are
				agentRequest: {
					query: N8N_MAJOR >= 2 ? { [toolName]: args } : args,
					tool: { name: toolName },
				},
			},
		);
		return await home.waitForExecution(executionId);
	}

	/** What the agent reads: the tool's items, which n8n hands over as JSON text. */
	const answer = (run: StoredExecution): unknown =>
		JSON.parse(run.outputs[TOOL_EXECUTOR][0] as unknown as string);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		home = await createN8nHome();
		await home.importCredential({ ...CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		workflowId = await home.importWorkflow(agentWorkflow());
		server = await home.start();
	});

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
	});

	beforeEach(() => sandbox.resetStats());

	test('n8n offers a tool variant of the Asset, Contract and User nodes', async () => {
		const { status, body } = await server.rest.raw('GET', '/types/nodes.json');
		expect(status).toBe(200);
		const tools = (body as Array<{ name: string; displayName: string }>).filter((type) =>
			type.name.endsWith('Tool'),
		);
		expect(tools).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ name: `${NODE.asset}Tool`, displayName: 'Stockroom Asset Tool' }),
				expect.objectContaining({
					name: `${NODE.contract}Tool`,
					displayName: 'Stockroom Contract Tool',
				}),
				expect.objectContaining({ name: `${NODE.user}Tool`, displayName: 'Stockroom User Tool' }),
			]),
		);
	});

	test('the agent lists assets with a filter and a limit of its choosing, simplified by default', async () => {
		const filter = 'status eq "Deployed" and hardwareVendor eq "Apple"';
		const expected = sandbox.store.assets
			.all()
			.filter((record) => record.status === 'Deployed' && record.hardwareVendor === 'Apple')
			.slice(0, 3);
		expect(expected).toHaveLength(3);

		const run = await callTool(TOOLS.findAssets, { filter, limit: 3 });

		expect(run.error).toBeUndefined();
		expect(run).toMatchObject({ status: 'success', nodeErrors: {} });
		expect(answer(run)).toEqual(
			(JSON.parse(JSON.stringify(expected)) as IDataObject[]).map(assetMainFields),
		);
		const lists = sandbox.journal().filter((call) => call.path === '/api/assets/v1');
		expect(lists.map((call) => call.query.filter)).toEqual([filter]);
	});

	test('a filter the agent got wrong fails with what was expected, before any request', async () => {
		const run = await callTool(TOOLS.findAssets, { filter: 'status eq "InStock"', limit: 5 });

		expect(run.status).toBe('error');
		expect(run.nodeErrors[TOOLS.findAssets.name]?.message).toMatch(
			/^Filter Expression, column 1: "InStock" is not a value of 'status' \(expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired\)/,
		);
		expect(sandbox.journal().filter((call) => call.path.startsWith('/api/'))).toEqual([]);
	});

	test('the agent gets a contract by the External ID it was given, whole with Simplify off', async () => {
		const contract = sandbox.store.contracts.all()[3];
		expect(typeof contract.externalId).toBe('string');

		const run = await callTool(TOOLS.contractByExternalId, {
			externalId: contract.externalId as string,
		});

		expect(run).toMatchObject({ status: 'success', nodeErrors: {} });
		expect(answer(run)).toEqual([JSON.parse(JSON.stringify(contract))]);
	});
});
