import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from './n8n';
import { SERVICE_DESK, serviceDesk } from './person';

const node = new StockroomAsset();

/**
 * A suite of Asset Sync tests against one sandbox: before each test the sandbox is reset and
 * `seeded` written (Replace, as input JSON), so that every test starts from the same register;
 * `sync` runs the Sync with the suite's parameters under the test's.
 */
export function assetSyncSuite(seeded: IDataObject[], defaults: IDataObject) {
	let sandbox: Sandbox | undefined;
	const suite = {
		sandbox: undefined as unknown as Sandbox,
		credential: undefined as unknown as CredentialStore,
		sync: (
			input: IDataObject[],
			parameters: IDataObject = {},
			extra: { continueOnFail?: boolean; asTool?: boolean } = {},
		) =>
			runNode(node, {
				parameters: { operation: 'sync', ...defaults, ...parameters } as never,
				credential: suite.credential,
				input,
				...extra,
			}),
		/** Writes the records, replacing what the service has under their External IDs. */
		put: async (records: IDataObject[]) =>
			await runNode(node, {
				parameters: { operation: 'upsert', mode: 'replace', inputMode: 'json' } as never,
				credential: suite.credential,
				input: records,
			}),
		apiCalls: () => suite.sandbox.journal().filter((entry) => entry.path.startsWith('/api/')),
		writes: () => suite.apiCalls().filter((entry) => entry.method !== 'GET'),
		stored: (externalId: string) =>
			suite.sandbox.store.assets.all().find((asset) => asset.externalId === externalId) as
				IDataObject | undefined,
		/** A person at the service desk, editing the register over HTTP as another client. */
		person: serviceDesk(() => sandbox!),
	};
	beforeAll(async () => {
		suite.sandbox = sandbox = await createSandbox({ clients: [SERVICE_DESK] });
		suite.credential = sandboxCredential(suite.sandbox);
	});
	afterAll(() => suite.sandbox.close());
	beforeEach(async () => {
		suite.sandbox.reset();
		await suite.put(seeded);
		suite.sandbox.resetStats();
	});
	return suite;
}
