import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../../sandbox/server';

export interface Harness {
	sandbox: Sandbox;
	/** Sends a token with every scope; never throws on an HTTP status. */
	api: AxiosInstance;
	/** No token; never throws on an HTTP status. */
	anonymous: AxiosInstance;
}

/** An in-process sandbox on a free port, with axios clients for it. */
export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
	const sandbox = await createSandbox(options);
	const anonymous = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
	const api = axios.create({
		baseURL: sandbox.url,
		validateStatus: () => true,
		headers: { Authorization: `Bearer ${sandbox.token()}` },
	});
	return { sandbox, api, anonymous };
}

export const TRACE_ID = /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/;

/** Asserts an RFC 7807 problem body in the service's shape. */
export function expectProblem(response: AxiosResponse, status: number, title: string): void {
	expect(response.status).toBe(status);
	expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
	expect(response.data).toMatchObject({
		status,
		title,
		type: expect.stringMatching(/^https:\/\/tools\.ietf\.org\//),
	});
	expect(response.data.extensions.traceId).toMatch(TRACE_ID);
}

/** Asserts a 400 validation problem naming exactly these fields. */
export function expectInvalid(response: AxiosResponse, fields: string[]): void {
	expectProblem(response, 400, 'One or more validation errors occurred.');
	expect(Object.keys(response.data.errors).sort()).toEqual([...fields].sort());
	for (const messages of Object.values(response.data.errors)) {
		expect(messages).toEqual([expect.any(String)]);
	}
}

/** A complete, valid asset body. */
export const newAsset = (
	externalId: string,
	extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
	externalId,
	deviceName: `Device ${externalId}`,
	status: 'ReadyToDeploy',
	hardwareVendor: 'Dell',
	assetType: 'Laptop',
	...extra,
});

/** A complete, valid contract body. */
export const newContract = (
	externalId: string,
	extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
	externalId,
	ref: `PO-${externalId}`,
	type: 'OrderForm',
	vendorName: 'Agilebits Inc',
	agreementDate: '2024-03-01',
	...extra,
});
