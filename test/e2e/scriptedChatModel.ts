import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A language model for n8n's AI Agent that speaks OpenAI's chat completions API (n8n's OpenAI
 * Chat Model node, Base URL pointed here) and follows a script instead of thinking: asked by the
 * agent, it calls the tool it was told to with the arguments it was told to; handed the tool's
 * answer, it records it and ends with a short reply. So a test runs the agent's real loop (tools
 * offered, `$fromAI()` arguments, the tool's answer or error) with no model and no network.
 */
export interface ToolCall {
	/** The tool's name as the agent offers it (the node's name, spaces as `_`). */
	tool: string;
	args: Record<string, unknown>;
}

interface ChatMessage {
	role: string;
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_call_id?: string;
}

interface ChatRequest {
	messages: ChatMessage[];
	tools?: Array<{ function: { name: string; parameters?: unknown } }>;
	stream?: boolean;
}

export interface ScriptedChatModel {
	/** The base URL for the OpenAI credential or the node's Base URL option (`…/v1`). */
	baseUrl: string;
	/** The tool call the model makes on the agent's next question. */
	callNext(call: ToolCall): void;
	/** The tools the agent offered, by name, with their parameters' JSON schema, in the last request. */
	offeredTools(): Record<string, unknown>;
	/** What each tool answered the agent (the `tool` message's text), oldest first. */
	toolAnswers(): string[];
	close(): Promise<void>;
}

const readBody = async (request: IncomingMessage): Promise<string> => {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
};

const textOf = (content: ChatMessage['content']): string =>
	typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');

export async function startScriptedChatModel(): Promise<ScriptedChatModel> {
	let next: ToolCall | undefined;
	let offered: Record<string, unknown> = {};
	const answers: string[] = [];
	let calls = 0;

	const server: Server = createServer((request, response) => {
		void (async () => {
			if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
				response.writeHead(404, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ error: { message: `no ${request.method} ${request.url}` } }));
				return;
			}
			const body = JSON.parse(await readBody(request)) as ChatRequest;
			offered = Object.fromEntries(
				(body.tools ?? []).map(({ function: tool }) => [tool.name, tool.parameters]),
			);
			const last = body.messages[body.messages.length - 1];
			let message: Record<string, unknown>;
			let finishReason: string;
			if (last?.role === 'tool') {
				answers.push(textOf(last.content));
				message = { role: 'assistant', content: 'Done.' };
				finishReason = 'stop';
			} else if (next) {
				calls++;
				message = {
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: `call_${calls}`,
							type: 'function',
							function: { name: next.tool, arguments: JSON.stringify(next.args) },
						},
					],
				};
				finishReason = 'tool_calls';
				next = undefined;
			} else {
				message = { role: 'assistant', content: 'Nothing to do.' };
				finishReason = 'stop';
			}
			const base = { id: `chatcmpl-${calls}`, created: 0, model: 'scripted' };
			if (body.stream) {
				const { tool_calls, ...rest } = message as { tool_calls?: Array<object> };
				const delta = tool_calls
					? { ...rest, tool_calls: tool_calls.map((call, index) => ({ index, ...call })) }
					: rest;
				const chunk = (choice: object) =>
					`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [choice] })}\n\n`;
				response.writeHead(200, { 'content-type': 'text/event-stream' });
				response.end(
					chunk({ index: 0, delta, finish_reason: null }) +
						chunk({ index: 0, delta: {}, finish_reason: finishReason }) +
						'data: [DONE]\n\n',
				);
				return;
			}
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({
					...base,
					object: 'chat.completion',
					choices: [{ index: 0, message, finish_reason: finishReason }],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		})().catch((error: unknown) => {
			response.writeHead(500, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		callNext: (call) => {
			next = call;
		},
		offeredTools: () => offered,
		toolAnswers: () => [...answers],
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
