/**
 * `npm run screenshots` (after scripts/screenshots.sh has built everything): real n8n with the
 * package and a sandbox, its editor in Debian's headless Chromium, and PNGs in docs/ of the node
 * panels, the credential dialog and a run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { chromium, selectors, type BrowserContext, type Locator, type Page } from 'playwright-core';

import { sandboxCredentialInput } from '../sandbox/credential';
import { createSandbox } from '../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	DEFAULT_OWNER,
	delay,
	EXAMPLE_CREDENTIAL,
	newId,
	NODE,
	repoRoot,
	type NodeSpec,
	type WorkflowJson,
} from './n8n';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-gpu',
	'--no-first-run',
	'--disable-sync',
];
const VIEWPORT = { width: 1440, height: 900 };
/** The editor sends this with every request and n8n binds the auth cookie to it. */
const BROWSER_ID = 'stockroom-screenshots';
const docsDir = path.join(repoRoot, 'docs');

/** A workflow to import and the node of it to photograph. */
interface Scene {
	file: string;
	workflow: WorkflowJson;
	nodeId: string;
}

function scene(file: string, node: NodeSpec, { start = true } = {}): Scene {
	const workflow = {
		...buildWorkflow(node.name, EXAMPLE_CREDENTIAL, [[node]], { start }),
		id: newId(),
	};
	const { id } = (workflow.nodes as Array<{ id: string; name: string }>).find(
		(entry) => entry.name === node.name,
	)!;
	return { file, workflow, nodeId: id };
}

const PANELS: Scene[] = [
	scene('asset-get-many-filter.png', {
		name: 'Deployed Dell assets',
		type: NODE.asset,
		parameters: {
			operation: 'getAll',
			returnAll: true,
			filterMode: 'manual',
			conditions: {
				condition: [
					{ field: 'status', operator: 'eq', statusValue: 'Deployed' },
					{ field: 'lastSyncDtm', operator: 'lt', dateValue: '2025-01-01T00:00:00' },
					{ field: 'hardwareVendor', operator: 'co', value: 'Dell' },
				],
			},
		},
	}),
	scene('contract-create-or-update.png', {
		name: 'Create or update contract',
		type: NODE.contract,
		parameters: {
			operation: 'upsert',
			externalId: 'INTAKE-2026-001',
			ref: 'PO-2026-0420',
			type: 'OrderForm',
			vendorName: 'Figma, Inc.',
			agreementDate: '2026-01-15T00:00:00',
			lineItemsUi: {
				values: [
					{
						externalId: 'FIG-ORG-SEATS',
						description: 'Organization plan seats',
						additionalFields: { unitCount: 40, amount: 45, currency: 'USD' },
					},
					{
						description: 'Onboarding workshop',
						additionalFields: { amount: 1500, currency: 'USD' },
					},
				],
			},
		},
	}),
	scene('contract-get-many-filter.png', {
		name: 'Large automatic renewals',
		type: NODE.contract,
		parameters: {
			operation: 'getAll',
			returnAll: true,
			filterMode: 'manual',
			conditions: {
				condition: [
					{ field: 'isAutomaticRenewal', operator: 'isTrue' },
					{ field: 'renewalDate', operator: 'lt', dateValue: '2027-01-01T00:00:00' },
				],
			},
			listConditions: {
				condition: [{ field: 'unitCount', operator: 'gt', numberValue: 100 }],
			},
		},
	}),
	scene('user-get-many-filter.png', {
		name: 'Inactive users',
		type: NODE.user,
		parameters: {
			operation: 'getAll',
			returnAll: true,
			filterMode: 'manual',
			conditions: {
				condition: [
					{ field: 'active', operator: 'isFalse' },
					{ field: 'emails.value', operator: 'ew', value: '@example.com' },
				],
			},
		},
	}),
	scene(
		'trigger-renewal-notice-due.png',
		{
			name: 'Renewal notice due',
			type: NODE.trigger,
			parameters: {
				pollTimes: { item: [{ mode: 'everyDay', hour: 8, minute: 0 }] },
				resource: 'contracts',
				event: 'renewalNoticeDue',
				withinDays: 60,
				filterMode: 'manual',
				conditions: { condition: [{ field: 'isAutomaticRenewal', operator: 'isTrue' }] },
				options: { firstRun: 'includeExisting' },
			},
		},
		{ start: false },
	),
	// Create or Update's Map Columns: the custom fields' columns are listed from the service
	scene('asset-create-or-update-map-columns.png', {
		name: 'Create or update device',
		type: NODE.asset,
		typeVersion: 2,
		parameters: {
			operation: 'upsert',
			mode: 'merge',
			inputMode: 'map',
			columns: {
				mappingMode: 'defineBelow',
				value: {
					externalId: '={{ $json.udid }}',
					deviceName: '={{ $json.name }}',
					serialNumber: '={{ $json.serial }}',
					'customFieldValues.costCenter': '={{ $json.department }}',
					'customFieldValues.memoryGb': '={{ $json.ramGb }}',
				},
				matchingColumns: ['externalId'],
				schema: [],
			},
		},
	}),
	scene('asset-sync.png', {
		name: 'Sync Jamf devices',
		type: NODE.asset,
		typeVersion: 2,
		parameters: {
			operation: 'sync',
			syncKey: 'externalId',
			fieldsToSync: ['deviceName', 'serialNumber', 'osVersion', 'platform', 'lastSyncDtm'],
			customFieldsToSync: ['costCenter'],
			filterMode: 'manual',
			conditions: { condition: [{ field: 'externalId', operator: 'sw', value: 'JAMF-' }] },
			missingRecords: 'setStatus',
			missingStatus: 'Retired',
			dryRun: true,
			maxRemovalPercent: 5,
		},
	}),
];

const RUN = scene('run-asset-get-many.png', {
	name: 'Deployed assets',
	type: NODE.asset,
	parameters: {
		operation: 'getAll',
		returnAll: true,
		filterMode: 'manual',
		conditions: { condition: [{ field: 'status', operator: 'eq', statusValue: 'Deployed' }] },
	},
});

const CREDENTIAL_FILE = 'credential.png';

/**
 * A Sync plan's report: tonight's Jamf export as the first eight Jamf assets, one of them gone and
 * two renamed, planned by a dry run with Output: Report. Its HTML is photographed as an e-mail
 * client shows it.
 */
const REPORT = {
	file: 'sync-report.png',
	workflow: {
		...buildWorkflow('Sync report', EXAMPLE_CREDENTIAL, [
			[
				{
					name: 'Jamf assets',
					type: NODE.asset,
					parameters: {
						operation: 'getAll',
						returnAll: true,
						filterMode: 'expression',
						filterExpression: 'externalId sw "JAMF-00000"',
					},
				},
				{
					name: 'Tonight’s export',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					parameters: {
						jsCode:
							'return $input.all().slice(1).map(({ json }, index) => ({ json: { externalId: json.externalId, deviceName: index < 2 ? `${json.deviceName} (new name)` : json.deviceName, serialNumber: json.serialNumber } }));',
					},
				},
				{
					name: 'Sync (dry run)',
					type: NODE.asset,
					typeVersion: 2,
					parameters: {
						operation: 'sync',
						fieldsToSync: ['deviceName', 'serialNumber'],
						filterMode: 'expression',
						filterExpression: 'externalId sw "JAMF-00000"',
						missingRecords: 'setStatus',
						missingStatus: 'Retired',
						dryRun: true,
						maxRemovalPercent: 20,
						options: { output: 'report' },
					},
				},
			],
		]),
		id: newId(),
	},
};

/** Makes the window tall enough that nothing inside `root` needs scrolling. */
async function growToFit(page: Page, root: Locator): Promise<void> {
	const overflow = await root.evaluate((element) => {
		const view = element.ownerDocument.defaultView!;
		return Math.max(
			0,
			...[element, ...element.querySelectorAll('*')]
				.filter((node) => ['auto', 'scroll'].includes(view.getComputedStyle(node).overflowY))
				.map((node) => node.scrollHeight - node.clientHeight),
		);
	});
	await page.setViewportSize({ ...VIEWPORT, height: VIEWPORT.height + overflow });
}

/**
 * Waits until the inputs in `panel` stop changing: n8n renders a panel's collections in steps,
 * and the filter builder's field list comes from the service.
 */
async function settle(panel: Locator, timeoutMs = 30_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	let last = '';
	for (let unchanged = 0; unchanged < 3;) {
		if (Date.now() > until) throw new Error(`The panel did not settle in ${timeoutMs} ms: ${last}`);
		await delay(300);
		const inputs = await panel
			.locator('input')
			.evaluateAll((nodes) =>
				nodes.map(
					(node) => `${node.getAttribute('placeholder')}=${(node as { value?: string }).value}`,
				),
			);
		const now = inputs.join('|');
		unchanged = now === last && !now.includes('Loading options') ? unchanged + 1 : 0;
		last = now;
	}
}

async function save(shot: Locator | Page, file: string): Promise<void> {
	await shot.screenshot({ path: path.join(docsDir, file) });
	console.log(`  docs/${file}`);
}

/** The node's panel, opened by its URL, cropped to the parameters column. */
async function photographPanel(
	page: Page,
	url: string,
	{ file, workflow, nodeId }: Scene,
): Promise<void> {
	await page.setViewportSize(VIEWPORT);
	await page.goto(`${url}/workflow/${workflow.id}/${nodeId}`);
	const parameters = page.getByTestId('node-parameters');
	await parameters.waitFor();
	await settle(parameters);
	await growToFit(page, parameters);
	await save(parameters.locator('..'), file);
}

async function photographCredential(page: Page, url: string): Promise<void> {
	await page.setViewportSize(VIEWPORT);
	await page.goto(`${url}/home/credentials/${EXAMPLE_CREDENTIAL.id}`);
	const dialog = page.getByTestId('editCredential-modal');
	// n8n tests the credential when the dialog opens: the token from the sandbox proves it works
	await dialog.getByTestId('credentials-config-container-test-success').waitFor();
	await growToFit(page, dialog);
	await save(dialog, CREDENTIAL_FILE);
}

/** Runs the workflow from the canvas and shows the node's output table in the logs panel. */
async function photographRun(page: Page, url: string): Promise<void> {
	await page.setViewportSize(VIEWPORT);
	await page.goto(`${url}/workflow/${RUN.workflow.id}`);
	await page.getByTestId('execute-workflow-button').click();
	const logs = page.getByTestId('logs-panel');
	if (!(await page.getByTestId('logs-overview-body').isVisible())) {
		await page.getByTestId('logs-overview-header').click();
	}
	await page.getByTestId('logs-overview-status').getByText('Success').waitFor({ timeout: 60_000 });
	// the last node run is selected by itself
	const output = page.getByTestId('log-details-output');
	await output.locator('table').waitFor();
	// the "executed successfully" toast would cover the canvas
	for (const close of await page.locator('.el-notification__closeBtn').all()) await close.click();
	await page.locator('.el-notification').waitFor({ state: 'detached' });
	// drag the panel's top edge up so more rows show
	const box = (await logs.boundingBox())!;
	await page.mouse.move(box.x + box.width / 2, box.y + 1);
	await page.mouse.down();
	await page.mouse.move(box.x + box.width / 2, VIEWPORT.height * 0.4, { steps: 10 });
	await page.mouse.up();
	// the record's bookkeeping columns (id, created, modified) come first: show the asset's own
	await output
		.locator('th', { hasText: /^externalId$/ })
		.evaluate((cell) => cell.scrollIntoView({ block: 'nearest', inline: 'start' }));
	await save(page, RUN.file);
}

/** The report's HTML as an e-mail shows it (the run made with n8n before the editor started). */
async function photographReport(page: Page, html: string): Promise<void> {
	await page.setViewportSize({ width: 820, height: 600 });
	await page.setContent(
		`<html><body style="font: 14px/1.45 -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 24px; color: #222">${html}</body></html>`,
	);
	await save(page.locator('body'), REPORT.file);
}

async function photograph(url: string, context: BrowserContext, reportHtml: string): Promise<void> {
	await context.addInitScript((id) => localStorage.setItem('n8n-browserId', id), BROWSER_ID);
	const login = await context.request.post(`${url}/rest/login`, {
		headers: { 'browser-id': BROWSER_ID },
		data: { emailOrLdapLoginId: DEFAULT_OWNER.email, password: DEFAULT_OWNER.password },
	});
	if (!login.ok()) {
		throw new Error(`Logging in to n8n failed: ${login.status()} ${await login.text()}`);
	}
	const page = await context.newPage();
	for (const panel of PANELS) await photographPanel(page, url, panel);
	await photographCredential(page, url);
	await photographRun(page, url);
	await photographReport(page, reportHtml);
}

async function main(): Promise<void> {
	const started = Date.now();
	mkdirSync(docsDir, { recursive: true });
	selectors.setTestIdAttribute('data-test-id');
	const sandbox = await createSandbox({ port: 0 });
	const home = await createN8nHome();
	const profile = mkdtempSync(path.join(tmpdir(), 'stockroom-chromium-'));
	try {
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await home.importWorkflows([...PANELS, RUN, REPORT].map(({ workflow }) => workflow));
		const report = await home.executeWorkflow(REPORT.workflow.id);
		const reportHtml = report.outputs['Sync (dry run)']?.[0]?.html;
		if (typeof reportHtml !== 'string')
			throw new Error(`The report run gave no HTML: ${JSON.stringify(report.error)}`);
		const server = await home.start();
		try {
			// a persistent context is how Playwright takes a fresh --user-data-dir
			const context = await chromium.launchPersistentContext(profile, {
				executablePath: CHROMIUM,
				headless: true,
				viewport: VIEWPORT,
				args: CHROMIUM_FLAGS,
			});
			try {
				await photograph(server.url, context, reportHtml);
			} finally {
				await context.close();
			}
		} finally {
			await server.stop();
		}
	} finally {
		rmSync(profile, { recursive: true, force: true });
		await home.dispose();
		await sandbox.close();
	}
	console.log(`Screenshots saved in docs/ (${Math.round((Date.now() - started) / 1000)} s)`);
}

void main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
