import { AxiosError, AxiosHeaders } from 'axios';
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';
import { Readable } from 'node:stream';
import { readFailure, readStreamBodies } from '../../../nodes/shared/transport/failure';

const node: INode = {
	id: '1',
	name: 'Stockroom Asset',
	type: 'n8n-nodes-stockroom.stockroomAsset',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const problem = {
	title: 'Conflict',
	status: 409,
	detail: "The externalId 'A-1' belongs to the asset 'x', not 'y'.",
};

function axiosError(status: number | undefined, data: unknown, code?: string, message?: string) {
	const headers = new AxiosHeaders({ 'retry-after': '7' });
	const response =
		status === undefined
			? undefined
			: { status, statusText: '', data, headers, config: { headers }, request: {} };
	return new AxiosError(
		message ?? `Request failed with status code ${status}`,
		code,
		{ headers },
		{},
		response as never,
	);
}

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('reading a failed call as n8n 2.x hands it over (the HTTP client error as the cause)', () => {
	test('status, problem body and Retry-After', () => {
		const error = new NodeApiError(node, axiosError(409, problem) as unknown as JsonObject);
		expect(readFailure(error, NOW)).toMatchObject({
			status: 409,
			body: problem,
			retryAfterMs: 7000,
		});
	});

	test('a success whose body was cut is a lost answer, not an HTTP failure', () => {
		const error = new NodeApiError(
			node,
			axiosError(
				200,
				'{"id":"65f1',
				'ERR_BAD_RESPONSE',
				'stream has been aborted',
			) as unknown as JsonObject,
		);
		const failure = readFailure(error, NOW);
		expect([failure.status, failure.code, failure.body]).toEqual([
			undefined,
			'ECONNRESET',
			undefined,
		]);
	});

	test('a dropped connection keeps its code', () => {
		const error = new NodeApiError(
			node,
			axiosError(undefined, undefined, 'ECONNRESET', 'read ECONNRESET') as unknown as JsonObject,
		);
		const failure = readFailure(error, NOW);
		expect([failure.status, failure.code]).toEqual([undefined, 'ECONNRESET']);
	});
});

/**
 * n8n 1.x (n8n-workflow 1.120, NodeApiError and ExecutionBaseError): a class field re-declares
 * `cause` after `super()`, so the HTTP client's error is gone; what is kept is `httpCode` (text),
 * `context.data` (the response body when it is an object, a stream included), and for connection
 * failures n8n's own message with the original in `messages`. These objects are that shape,
 * written by hand from n8n-workflow 1.123.x's dist/cjs/errors/node-api.error.js.
 */
function n8n1Error(fields: {
	message: string;
	httpCode: string | null;
	data?: unknown;
	messages?: string[];
}) {
	return Object.assign(new Error(fields.message), {
		name: 'NodeApiError',
		httpCode: fields.httpCode,
		context: fields.data === undefined ? {} : { data: fields.data },
		messages: fields.messages ?? [],
		description: undefined,
		cause: undefined,
	});
}

describe('reading a failed call as n8n 1.x hands it over (no cause)', () => {
	test('the problem body from context.data', () => {
		const error = n8n1Error({
			message: 'The resource you are requesting could not be found',
			httpCode: '409',
			data: problem,
			messages: ['Request failed with status code 409'],
		});
		expect(readFailure(error, NOW)).toEqual({
			message: 'The resource you are requesting could not be found',
			status: 409,
			body: problem,
		});
	});

	test('a problem body left as a stream is read once, wherever it is referenced', async () => {
		const stream = Readable.from([Buffer.from(JSON.stringify(problem))]);
		const error = n8n1Error({ message: 'Conflict', httpCode: '409', data: stream });
		// n8n 2.x references the same stream from the cause's response and from context.data
		Object.assign(error, { cause: { response: { status: 409, data: stream } } });
		await readStreamBodies(error);
		expect(readFailure(error, NOW)).toMatchObject({ status: 409, body: problem });
	});

	test.each([
		['read ECONNRESET', 'ECONNRESET'],
		['socket hang up', 'ECONNRESET'],
		['aborted', 'ECONNRESET'],
		// n8n 1.85's axios, for an answer cut half-way
		['stream has been aborted', 'ECONNRESET'],
		['timeout of 1000ms exceeded', 'ECONNABORTED'],
		['connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'],
		['getaddrinfo ENOTFOUND stockroom.invalid', 'ENOTFOUND'],
	])('a connection failure whose original text was %p is %s', (original, code) => {
		const error = n8n1Error({
			message: 'The connection to the server was closed unexpectedly, perhaps it is offline.',
			httpCode: null,
			messages: [original],
		});
		const failure = readFailure(error, NOW);
		expect([failure.status, failure.code]).toEqual([undefined, code]);
	});

	test('an HTTP failure is not taken for a connection failure by its words', () => {
		const error = n8n1Error({
			message:
				'Service unavailable - try again later or consider setting this node to retry automatically (in the node settings)',
			httpCode: '503',
			messages: ['Request failed with status code 503 (socket hang up was logged)'],
		});
		const failure = readFailure(error, NOW);
		expect([failure.status, failure.code]).toEqual([503, undefined]);
	});
});
