import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { SERVICE_DESK, serviceDesk } from '../helpers/person';

/**
 * A year of nights (issue 38), as a property over real HTTP: one register, one device export
 * synced night after night (Match On Serial Number, missing devices retired), while devices leave
 * the export and come back, new ones appear, serials are corrected and arrive padded or re-cased,
 * and a person at the service desk (another client app) renames, assigns, annotates, corrects
 * serials and sets statuses by hand; some nights are a dry run approved and applied (Apply Only
 * Plan, the export read in another order), with an edit in between or none. After every night the
 * register, the output items and the writes the service received are the model's, written from
 * docs/sync.md and the issue, not from the code:
 *
 * - nothing the export holds is retired; what it does not hold is retired (unless it already
 *   was), whatever status a person gave it; nothing is deleted;
 * - a device back in the export whose status is Retired gets the status its row gives
 *   (Returning Records: Restore, action `restored`), a hand-retired one too; or stays Retired and
 *   says so (Leave As It Is: `reason`, Summary's `returnedNotRestored`);
 * - another status a person set (OutForRepair) stays while the export has the device; notes and
 *   assignee (not owned) are what the person last wrote; owned fields are the export's (keys
 *   compared trimmed, case aside, the stored form kept); Status and Hardware Vendor only on
 *   creation; devices of other sources are never touched;
 * - new devices land in the scope (with the custom field scope, Source = Jamf), so the next night
 *   finds them: no row is refused, ever;
 * - an approved plan is applied as it was reviewed (same actions, changes and digest), or, when a
 *   record it touches was edited (or the plan moved) in between, refused naming the record and
 *   who edited it, writing nothing;
 * - the same night run again writes nothing.
 *
 * fast-check prints the seed and path of a failure, and the failure message ends with the nights
 * that led to it: replay with SYNC_SEED=<seed> SYNC_PATH=<path>; SYNC_NIGHTS_RUNS=<n> for more
 * cases (default 6: each case takes seconds); SYNC_SHRINK=1 shrinks a failure (it takes minutes,
 * so it is off by default); SYNC_NIGHTS_LOG=<file> appends every case's nights to the file (what
 * the cases covered).
 */

const node = new StockroomAsset();

const PREFIX = 'NIGHT-';
const RETIRED = 'Retired';
/** The status every row gives a new device (Fields Set Only When Creating). */
const GIVEN = 'Deployed';
const MAX_DEVICES = 10;
const JAMF = { source: { optionValue: ['Jamf'] } };

const ext = (n: number) => `${PREFIX}${n}`;
/** Keys as the spec compares them: trimmed, case aside. */
const keyForm = (key: string) => key.trim().toLowerCase();

// ---------------------------------------------------------------------------------------------
// What is generated

type Form = 'exact' | 'lower' | 'padded' | 'paddedLower';
type HandStatus = 'OutForRepair' | 'Retired' | 'Deployed';
/** `serial`: a person corrects the serial by hand (another value, or the same re-cased). */
type EditKind = 'rename' | 'assign' | 'unassign' | 'notes' | 'serial' | HandStatus;
type SourceEvent =
	| { kind: 'vanish' | 'return' | 'correct' | 'rename' | 'vendor' | 'retag'; d: number }
	| { kind: 'appear' };
interface Between {
	/** Between the dry run and the apply: an edit of a record the plan touches, of one it does not, or none. */
	target: 'touched' | 'untouched' | 'none';
	d: number;
	kind: 'rename' | 'assign' | 'notes' | 'serial' | 'status';
	/** The apply reads the export in another order (rotated by this much): the same plan. */
	rotate: number;
}
interface Night {
	source: SourceEvent[];
	/**
	 * Tonight's export writes these devices' serials (or, for a device the register has, External
	 * IDs) padded or re-cased.
	 */
	dirt: Array<{ d: number; form: Form; field: 'serialNumber' | 'externalId' }>;
	/** A person's edits before tonight's run. */
	edits: Array<{ d: number; kind: EditKind }>;
	/** A dry run, approved and applied with Apply Only Plan. */
	approval?: Between;
}
interface InitialDevice {
	/** In the register before the first night, and with which status. */
	stored: 'none' | 'Deployed' | 'Retired' | 'OutForRepair';
	storedSerial: 'exact' | 'lower';
	staleName: boolean;
	notes: boolean;
	assigned: boolean;
	inExport: boolean;
}
interface Case {
	scope: 'prefix' | 'custom';
	returning: 'restore' | 'leave';
	syncTag: boolean;
	fleet: InitialDevice[];
	nights: Night[];
}

const sourceEvent: fc.Arbitrary<SourceEvent> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constantFrom('vanish', 'vanish', 'return', 'return', 'correct', 'rename'),
			d: fc.nat(MAX_DEVICES - 1),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constantFrom('vendor', 'retag'), d: fc.nat(MAX_DEVICES - 1) }),
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('appear') }) },
) as fc.Arbitrary<SourceEvent>;

const night: fc.Arbitrary<Night> = fc.record(
	{
		source: fc.array(sourceEvent, { maxLength: 3 }),
		dirt: fc.array(
			fc.record({
				d: fc.nat(MAX_DEVICES - 1),
				form: fc.constantFrom<Form>('lower', 'padded', 'paddedLower'),
				field: fc.constantFrom('serialNumber', 'serialNumber', 'externalId'),
			}),
			{ maxLength: 2 },
		),
		edits: fc.array(
			fc.record({
				d: fc.nat(MAX_DEVICES - 1),
				kind: fc.constantFrom<EditKind>(
					'rename',
					'assign',
					'unassign',
					'notes',
					'serial',
					'OutForRepair',
					'Retired',
					'Deployed',
				),
			}),
			{ maxLength: 2 },
		),
		approval: fc.option(
			fc.record({
				target: fc.constantFrom<Between['target']>('touched', 'untouched', 'none'),
				d: fc.nat(MAX_DEVICES - 1),
				kind: fc.constantFrom<Between['kind']>('rename', 'assign', 'notes', 'serial', 'status'),
				rotate: fc.nat(MAX_DEVICES - 1),
			}),
			{ nil: undefined, freq: 2 },
		),
	},
	{ requiredKeys: ['source', 'dirt', 'edits'] },
);

const world: fc.Arbitrary<Case> = fc.record({
	scope: fc.constantFrom<Case['scope']>('prefix', 'custom'),
	returning: fc.constantFrom<Case['returning']>('restore', 'restore', 'leave'),
	syncTag: fc.boolean(),
	fleet: fc.array(
		fc.record({
			stored: fc.constantFrom<InitialDevice['stored']>(
				'none',
				'Deployed',
				'Deployed',
				'Retired',
				'OutForRepair',
			),
			storedSerial: fc.constantFrom<InitialDevice['storedSerial']>('exact', 'lower'),
			staleName: fc.boolean(),
			notes: fc.boolean(),
			assigned: fc.boolean(),
			inExport: fc.boolean(),
		}),
		{ minLength: 3, maxLength: 6 },
	),
	nights: fc.array(night, { minLength: 5, maxLength: 10 }),
});

const replay = () => {
	const { SYNC_SEED: seed, SYNC_PATH: path } = process.env;
	return seed ? { seed: Number(seed), path } : {};
};

// ---------------------------------------------------------------------------------------------
// The model

/** A device as the export knows it. */
interface Device {
	n: number;
	serial: string;
	name: string;
	vendor: string;
	tag: string;
	present: boolean;
}
/** A record of the register, as the model expects it. */
interface Stored {
	serialNumber: string;
	deviceName: string;
	status: string;
	hardwareVendor: string;
	notes?: string;
	assignedToEmail?: string;
	assetTag?: string;
	jamf: boolean;
}
type Register = Map<string, Stored>;
interface Row {
	n: number;
	json: IDataObject;
}
type Changes = Record<string, { before: unknown; after: unknown }>;
interface Expected {
	externalId: string;
	action: 'created' | 'updated' | 'restored' | 'retired' | 'missing' | 'unchanged';
	changes: Changes;
	/** Back in the export, its status left Retired (Leave As It Is). */
	returning: boolean;
	/** What the write sends (PUT body or PATCH patch). */
	write?: { method: 'PUT' | 'PATCH'; body: IDataObject };
}

const PLANNED: Record<Expected['action'], string> = {
	created: 'create',
	updated: 'update',
	restored: 'restore',
	retired: 'retire',
	missing: 'missing',
	unchanged: 'unchanged',
};
const TOUCHES = new Set<Expected['action']>(['updated', 'restored', 'retired']);

/** What tonight's sync does to the register, from the spec. */
function modelPlan(register: Register, rows: Row[], settings: Case): Expected[] {
	const plan: Expected[] = [];
	const named = new Set<string>();
	for (const { n, json } of rows) {
		const externalId = ext(n);
		named.add(externalId);
		const key = String(json.serialNumber).trim();
		const record = register.get(externalId);
		if (!record) {
			const body: IDataObject = {
				serialNumber: key,
				externalId,
				deviceName: json.deviceName,
				...(settings.syncTag ? { assetTag: json.assetTag } : {}),
				status: GIVEN,
				hardwareVendor: json.hardwareVendor,
				...(settings.scope === 'custom' ? { customFieldValues: JAMF } : {}),
			};
			const changes = Object.fromEntries(
				Object.entries(body).map(([field, after]) => [field, { before: null, after }]),
			);
			plan.push({
				externalId,
				action: 'created',
				changes,
				returning: false,
				write: { method: 'PUT', body },
			});
			continue;
		}
		const changes: Changes = {};
		if (record.deviceName !== json.deviceName)
			changes.deviceName = { before: record.deviceName, after: json.deviceName };
		if (keyForm(record.serialNumber) !== keyForm(key))
			changes.serialNumber = { before: record.serialNumber, after: key };
		if (settings.syncTag && record.assetTag !== json.assetTag)
			changes.assetTag = { before: record.assetTag ?? null, after: json.assetTag };
		const back = record.status === RETIRED;
		const restore = back && settings.returning === 'restore';
		if (restore) changes.status = { before: RETIRED, after: GIVEN };
		const body = Object.fromEntries(
			Object.entries(changes).map(([field, { after }]) => [field, after]),
		) as IDataObject;
		const action = restore ? 'restored' : Object.keys(changes).length ? 'updated' : 'unchanged';
		plan.push({
			externalId,
			action,
			changes,
			returning: back && !restore,
			...(action === 'unchanged' ? {} : { write: { method: 'PATCH' as const, body } }),
		});
	}
	for (const [externalId, record] of register) {
		if (named.has(externalId)) continue;
		if (record.status === RETIRED) {
			plan.push({ externalId, action: 'missing', changes: {}, returning: false });
			continue;
		}
		const changes = { status: { before: record.status, after: RETIRED } };
		plan.push({
			externalId,
			action: 'retired',
			changes,
			returning: false,
			write: { method: 'PATCH', body: { status: RETIRED } },
		});
	}
	return plan.sort((a, b) => a.externalId.localeCompare(b.externalId));
}

/** The register after a plan is written. */
function applyPlan(register: Register, plan: Expected[]): void {
	for (const entry of plan) {
		if (!entry.write) continue;
		const body = entry.write.body;
		if (entry.action === 'created') {
			register.set(entry.externalId, {
				serialNumber: body.serialNumber as string,
				deviceName: body.deviceName as string,
				status: body.status as string,
				hardwareVendor: body.hardwareVendor as string,
				...(body.assetTag === undefined ? {} : { assetTag: body.assetTag as string }),
				jamf: body.customFieldValues !== undefined,
			});
			continue;
		}
		Object.assign(register.get(entry.externalId)!, body);
	}
}

/** Two plans are the same plan: the same writes with the same changes, the same returning. */
const planText = (plan: Expected[]) =>
	JSON.stringify(
		plan
			.filter((entry) => entry.action !== 'unchanged' || entry.returning)
			.map(({ externalId, action, changes, returning }) => ({
				externalId,
				action,
				changes,
				returning,
			})),
	);

// ---------------------------------------------------------------------------------------------
// The property

describe('Sync property: a year of nights (issue 38)', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const person = serviceDesk(() => sandbox);
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 0, clients: [SERVICE_DESK] });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());

	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');
	const assets = () => sandbox.store.assets.all() as readonly IDataObject[];

	async function check(world: Case): Promise<void> {
		const log: string[] = [];
		try {
			await live(world, log);
			if (process.env.SYNC_NIGHTS_LOG)
				appendFileSync(process.env.SYNC_NIGHTS_LOG, `${log.join('\n')}\n\n`);
		} catch (error) {
			const failure = error instanceof Error ? error : new Error(String(error));
			failure.message = `${failure.message}\n\nThe nights so far:\n${log.map((line) => `  ${line}`).join('\n')}\n`;
			throw failure;
		}
	}

	async function live(world: Case, log: string[]): Promise<void> {
		sandbox.reset();
		const settings = world;
		const parameters: IDataObject = {
			operation: 'sync',
			// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
			maxFailedPercent: 100,
			syncKey: 'serialNumber',
			fieldsToSync: world.syncTag
				? ['deviceName', 'serialNumber', 'assetTag']
				: ['deviceName', 'serialNumber'],
			createOnlyFields: ['status', 'hardwareVendor'],
			filterMode: 'expression',
			filterExpression:
				world.scope === 'prefix'
					? `externalId sw "${PREFIX}"`
					: 'customFieldValues.source eq "Jamf"',
			missingRecords: 'setStatus',
			missingStatus: RETIRED,
			returningRecords: world.returning,
			maxRemovalPercent: 100,
			maxClearPercent: 100,
		};
		const sync = async (rows: Row[], more: IDataObject = {}) =>
			(
				await runNode(node, {
					parameters: { ...parameters, ...more } as never,
					credential,
					continueOnFail: true,
					input: rows.map((row) => row.json),
				})
			)[0];
		log.push(
			`case: scope ${String(parameters.filterExpression)}, Returning Records ${world.returning}, Fields to Sync ${(parameters.fieldsToSync as string[]).join(', ')}`,
		);

		// devices of other sources, outside both scopes: never touched
		for (const decoy of [
			{
				externalId: 'OTHER-1',
				serialNumber: 'OT-1',
				customFieldValues: { source: { optionValue: ['Intune'] } },
			},
			{ externalId: 'OTHER-2', serialNumber: 'OT-2' },
		])
			await person.createAsset({
				deviceName: 'Not ours',
				status: 'Deployed',
				hardwareVendor: 'Dell',
				...decoy,
			});
		const decoys = () =>
			JSON.stringify(assets().filter((asset) => !String(asset.externalId).startsWith(PREFIX)));
		const decoysBefore = decoys();

		// the fleet, and the register before the first night
		const fleet: Device[] = world.fleet.map((initial, n) => ({
			n,
			serial: `SN-${n}`,
			name: `Device ${n}`,
			vendor: 'Lenovo',
			tag: `TAG-${n}`,
			present: initial.inExport || n === 0,
		}));
		const register: Register = new Map();
		for (const [n, initial] of world.fleet.entries()) {
			if (initial.stored === 'none') continue;
			const stored: Stored = {
				serialNumber: initial.storedSerial === 'lower' ? `sn-${n}` : `SN-${n}`,
				deviceName: initial.staleName ? `Old name ${n}` : `Device ${n}`,
				status: initial.stored,
				hardwareVendor: 'Lenovo',
				...(initial.notes ? { notes: `bought in 2024 (${n})` } : {}),
				...(initial.assigned ? { assignedToEmail: `owner${n}@northwind.example` } : {}),
				...(n % 2 ? { assetTag: `TAG-${n}` } : {}),
				jamf: true,
			};
			register.set(ext(n), stored);
			const { jamf: _jamf, ...fields } = stored;
			await person.createAsset({ externalId: ext(n), ...fields, customFieldValues: JAMF });
		}
		log.push(
			`register: ${[...register].map(([id, stored]) => `${id} ${stored.status} "${stored.deviceName}" ${stored.serialNumber}`).join('; ') || '(none of the fleet)'}`,
		);
		log.push(
			`export: ${fleet
				.filter((device) => device.present)
				.map((device) => ext(device.n))
				.join(', ')}`,
		);

		let counter = 0;
		const pick = <T>(list: readonly T[], d: number): T | undefined =>
			list.length ? list[d % list.length] : undefined;

		/** A person's edit, over HTTP, and in the model; always changes what it edits. */
		const edit = async (
			externalId: string,
			kind: EditKind | 'status',
			d: number,
			when: string,
		): Promise<string> => {
			const stored = register.get(externalId)!;
			counter++;
			let patch: IDataObject;
			if (kind === 'rename') patch = { deviceName: `Renamed by hand ${counter}` };
			else if (kind === 'notes') patch = { notes: `note ${counter}` };
			else if (kind === 'assign' || (kind === 'unassign' && !stored.assignedToEmail))
				patch = { assignedToEmail: `holder${counter}@northwind.example` };
			else if (kind === 'unassign') patch = { assignedToEmail: null };
			else if (kind === 'serial') {
				const serial = stored.serialNumber;
				patch = {
					serialNumber:
						d % 2
							? `HAND-${counter}`
							: serial === serial.toLowerCase()
								? serial.toUpperCase()
								: serial.toLowerCase(),
				};
			} else {
				const others = (['OutForRepair', 'Retired', 'Deployed'] as const).filter(
					(status) => status !== stored.status,
				);
				patch = { status: kind === 'status' ? others[d % others.length] : kind };
				if (patch.status === stored.status)
					return `${when}: ${externalId} already ${stored.status}`;
			}
			await person.editAsset(externalId, patch);
			// null clears: the field is gone
			Object.assign(
				stored,
				Object.fromEntries(
					Object.entries(patch).map(([field, value]) => [field, value ?? undefined]),
				),
			);
			return `${when}: ${externalId} ${JSON.stringify(patch)}`;
		};

		/** The register as the sandbox holds it, in the model's terms. */
		const actual = () =>
			new Map(
				assets()
					.filter((asset) => String(asset.externalId).startsWith(PREFIX))
					.map((asset) => [
						asset.externalId as string,
						{
							serialNumber: asset.serialNumber,
							deviceName: asset.deviceName,
							status: asset.status,
							hardwareVendor: asset.hardwareVendor,
							notes: asset.notes,
							assignedToEmail: asset.assignedToEmail,
							assetTag: asset.assetTag,
							customFieldValues: asset.customFieldValues,
						},
					]),
			);
		const expectedRegister = () =>
			new Map(
				[...register].map(([externalId, stored]) => [
					externalId,
					{
						serialNumber: stored.serialNumber,
						deviceName: stored.deviceName,
						status: stored.status,
						hardwareVendor: stored.hardwareVendor,
						notes: stored.notes,
						assignedToEmail: stored.assignedToEmail,
						assetTag: stored.assetTag,
						customFieldValues: stored.jamf ? JAMF : undefined,
					},
				]),
			);
		const sorted = <V>(map: Map<string, V>) =>
			[...map].sort(([a], [b]) => a.localeCompare(b)).map(([id, value]) => ({ id, ...value }));
		const registerIsModel = (when: string) =>
			expect({ when, register: sorted(actual()) }).toEqual({
				when,
				register: sorted(expectedRegister()),
			});

		/** The output items in the model's terms, by External ID. */
		const outcome = (items: INodeExecutionData[], plan: Expected[]) => {
			const idToExternalId = new Map(assets().map((asset) => [asset.id, asset.externalId]));
			const created = new Map(
				plan
					.filter((entry) => entry.action === 'created')
					.map((entry) => [keyForm(String(entry.changes.serialNumber.after)), entry.externalId]),
			);
			return items
				.map(({ json }) => {
					if (json.error !== undefined)
						return { externalId: undefined, error: json.error, message: json.message };
					const externalId =
						json.id === undefined
							? created.get(keyForm(String(json.serialNumber)))
							: idToExternalId.get(json.id as string);
					const reason = typeof json.reason === 'string' ? json.reason : undefined;
					return {
						externalId,
						action: json.action,
						changes: json.changes,
						returning:
							reason?.startsWith(`back in the source; its status stays ${RETIRED}`) ?? false,
						...(reason !== undefined && !reason.startsWith('back in the source') ? { reason } : {}),
					};
				})
				.sort((a, b) => String(a.externalId).localeCompare(String(b.externalId)));
		};
		const expectedOutcome = (plan: Expected[], dryRun: boolean) =>
			plan.map(({ externalId, action, changes, returning }) => ({
				externalId,
				action: dryRun ? PLANNED[action] : action,
				changes,
				returning,
			}));
		const planIds = (items: INodeExecutionData[]) => [
			...new Set(items.map((item) => item.json.planId as string)),
		];
		/** The writes the journal saw, by External ID, against the plan's. */
		const writesAre = (when: string, plan: Expected[]) => {
			const idToExternalId = new Map(assets().map((asset) => [asset.id, asset.externalId]));
			const seen = writes()
				.map((call) => ({
					externalId:
						call.method === 'PUT'
							? (call.body as IDataObject).externalId
							: idToExternalId.get(call.path.split('/').at(-1)!),
					method: call.method,
					body: call.body,
				}))
				.sort((a, b) => String(a.externalId).localeCompare(String(b.externalId)));
			const expected = plan
				.filter((entry) => entry.write)
				.map((entry) => ({ externalId: entry.externalId, ...entry.write! }));
			expect({ when, writes: seen }).toEqual({ when, writes: expected });
		};
		const said = (plan: Expected[]) =>
			plan
				.filter((entry) => entry.action !== 'unchanged' || entry.returning)
				.map(
					(entry) =>
						`${entry.action}${entry.returning ? ' (left Retired)' : ''} ${entry.externalId}${Object.keys(entry.changes).length && entry.action !== 'created' ? ` ${JSON.stringify(Object.fromEntries(Object.entries(entry.changes).map(([field, { after }]) => [field, after])))}` : ''}`,
				)
				.join('; ') || 'nothing to write';

		/** A run that writes, checked against the model's plan; the model then carries the plan out. */
		const runChecked = async (when: string, rows: Row[], more: IDataObject = {}) => {
			const plan = modelPlan(register, rows, settings);
			sandbox.resetStats();
			const items = await sync(rows, more);
			expect({ when, items: outcome(items, plan) }).toEqual({
				when,
				items: expectedOutcome(plan, false),
			});
			writesAre(when, plan);
			applyPlan(register, plan);
			return { plan, items };
		};
		const dryRun = async (when: string, rows: Row[]) => {
			const plan = modelPlan(register, rows, settings);
			sandbox.resetStats();
			const items = await sync(rows, { dryRun: true });
			expect({ when, items: outcome(items, plan) }).toEqual({
				when,
				items: expectedOutcome(plan, true),
			});
			expect({ when, writes: writes() }).toEqual({ when, writes: [] });
			const ids = planIds(items);
			expect({ when, planIds: ids.length }).toEqual({ when, planIds: 1 });
			return { plan, id: ids[0] };
		};
		const digestOf = (id: string) =>
			id.replace(/-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}$/, '');

		for (const [index, tonight] of world.nights.entries()) {
			const label = `night ${index + 1}`;
			const lines: string[] = [];
			// the export changes
			for (const event of tonight.source) {
				if (event.kind === 'appear') {
					if (fleet.length >= MAX_DEVICES) continue;
					const n = fleet.length;
					fleet.push({
						n,
						serial: `SN-${n}`,
						name: `Device ${n}`,
						vendor: 'Lenovo',
						tag: `TAG-${n}`,
						present: true,
					});
					lines.push(`new ${ext(n)}`);
					continue;
				}
				const present = fleet.filter((device) => device.present);
				const pool =
					event.kind === 'vanish'
						? present.length > 1
							? present
							: []
						: event.kind === 'return'
							? fleet.filter((device) => !device.present)
							: fleet;
				const device = pick(pool, event.d);
				if (!device) continue;
				counter++;
				if (event.kind === 'vanish') device.present = false;
				if (event.kind === 'return') device.present = true;
				if (event.kind === 'correct') device.serial = `SN-${device.n}-C${counter}`;
				if (event.kind === 'rename') device.name = `Device ${device.n} v${counter}`;
				if (event.kind === 'vendor')
					device.vendor = device.vendor === 'Lenovo' ? 'Apple' : 'Lenovo';
				if (event.kind === 'retag') device.tag = `TAG-${device.n}-${counter}`;
				lines.push(
					`${event.kind} ${ext(device.n)}${event.kind === 'correct' ? ` → ${device.serial}` : ''}${event.kind === 'rename' ? ` → "${device.name}"` : ''}`,
				);
			}
			// tonight's export, some keys padded or re-cased
			const forms = new Map<string, Form>();
			const present = fleet.filter((device) => device.present);
			for (const { d, form, field } of tonight.dirt) {
				const device = pick(present, d)!;
				// a new device's External ID is written as the row gives it: kept clean
				if (field === 'serialNumber' || register.has(ext(device.n)))
					forms.set(`${field} ${device.n}`, form);
			}
			const dirty = (field: string, n: number, value: string) => {
				const form = forms.get(`${field} ${n}`) ?? 'exact';
				const written =
					form === 'lower'
						? value.toLowerCase()
						: form === 'padded'
							? ` ${value}  `
							: form === 'paddedLower'
								? `  ${value.toLowerCase()} `
								: value;
				if (form !== 'exact') lines.push(`${field} of ${ext(n)} as ${JSON.stringify(written)}`);
				return written;
			};
			const rows: Row[] = present.map((device) => ({
				n: device.n,
				json: {
					externalId: dirty('externalId', device.n, ext(device.n)),
					serialNumber: dirty('serialNumber', device.n, device.serial),
					deviceName: device.name,
					status: GIVEN,
					hardwareVendor: device.vendor,
					assetTag: device.tag,
				},
			}));
			// a person's edits since the last night
			const registered = [...register.keys()].sort();
			for (const { d, kind } of tonight.edits) {
				const target = pick(registered, d);
				if (target) lines.push(await edit(target, kind, d, `person ${kind}`));
			}
			log.push(
				`${label}: export ${rows.map((row) => ext(row.n)).join(', ')}${lines.length ? `; ${lines.join('; ')}` : ''}`,
			);

			if (!tonight.approval) {
				const { plan } = await runChecked(`${label}: run`, rows);
				log.push(`  run: ${said(plan)}`);
			} else {
				const between = tonight.approval;
				const turn = between.rotate % rows.length;
				const rotated = [...rows.slice(turn), ...rows.slice(0, turn)];
				const dry = await dryRun(`${label}: dry run`, rows);
				log.push(`  dry run: ${said(dry.plan)} (${dry.id})`);
				const touched = dry.plan
					.filter((entry) => TOUCHES.has(entry.action))
					.map((entry) => entry.externalId);
				const untouched = [...register.keys()].filter((id) => !touched.includes(id)).sort();
				const target =
					between.target === 'none'
						? undefined
						: pick(between.target === 'touched' ? touched : untouched, between.d);
				if (target)
					log.push(
						`  ${await edit(target, between.kind, between.d, `between, ${between.target}`)}`,
					);
				else log.push(`  between: no edit (${between.target})`);
				const now = modelPlan(register, rows, settings);
				const refused =
					(target !== undefined && touched.includes(target)) ||
					planText(now) !== planText(dry.plan);
				if (refused) {
					sandbox.resetStats();
					const items = await sync(rotated, { applyOnlyPlan: dry.id });
					const when = `${label}: apply of a plan edited since`;
					// the refusal names the record edited by its key as the register has it, and who
					const key = String(register.get(target!)!.serialNumber).trim();
					expect({ when, items: items.map((item) => item.json) }).toEqual({
						when,
						items: [
							{
								error: `Sync refused: the plan is not the one approved: the asset ${key} was edited since the dry run`,
								message: expect.stringMatching(
									/^Nothing was written\.\nEdited since the dry run: .* by service-desk \(API client\): /,
								),
							},
						],
					});
					expect({ when, writes: writes() }).toEqual({ when, writes: [] });
					registerIsModel(when);
					log.push(`  apply: refused, as it should (${String(items[0].json.error)})`);
					// approved again
					const again = await dryRun(`${label}: dry run again`, rows);
					const { items: applied } = await runChecked(`${label}: apply approved again`, rotated, {
						applyOnlyPlan: again.id,
					});
					expect({ when, planIds: planIds(applied) }).toEqual({ when, planIds: [again.id] });
					log.push(`  approved again and applied: ${said(again.plan)}`);
				} else {
					const when = `${label}: apply of the approved plan`;
					const { plan, items } = await runChecked(when, rotated, { applyOnlyPlan: dry.id });
					// the plan reviewed is the plan written
					expect({ when, plan: expectedOutcome(plan, false) }).toEqual({
						when,
						plan: expectedOutcome(dry.plan, false),
					});
					const ids = planIds(items);
					expect({ when, digests: ids.map(digestOf) }).toEqual({
						when,
						digests: [digestOf(dry.id)],
					});
					if (!target) expect({ when, planIds: ids }).toEqual({ when, planIds: [dry.id] });
					log.push(`  apply (the export rotated by ${turn}): as approved`);
				}
			}

			const when = `${label}: after the run`;
			registerIsModel(when);
			expect({ when, decoys: decoys() }).toEqual({ when, decoys: decoysBefore });

			// the same night again writes nothing; the summary counts what the register now is
			sandbox.resetStats();
			const [summary, ...failed] = await sync(rows, { options: { output: 'summary' } });
			const absent = [...register.keys()].filter((id) => !rows.some((row) => ext(row.n) === id));
			const left = rows.filter((row) => register.get(ext(row.n))!.status === RETIRED);
			const again = `${label}: run again`;
			expect({
				when: again,
				failed: failed.map((item) => item.json),
				summary: summary.json,
			}).toEqual({
				when: again,
				failed: [],
				summary: expect.objectContaining({
					created: 0,
					updated: 0,
					restored: 0,
					retired: 0,
					deleted: 0,
					failed: 0,
					unchanged: rows.length,
					missing: absent.length,
					returnedNotRestored: world.returning === 'leave' ? left.length : 0,
					scope: register.size,
					source: rows.length,
				}),
			});
			expect({ when: again, writes: writes() }).toEqual({ when: again, writes: [] });
		}
	}

	test('random nights against one register: the register is the model after every night', async () => {
		await fc.assert(fc.asyncProperty(world, check), {
			...replay(),
			numRuns: Number(process.env.SYNC_NIGHTS_RUNS ?? 6),
			endOnFailure: process.env.SYNC_SHRINK !== '1',
		});
	}, 600_000);
});
