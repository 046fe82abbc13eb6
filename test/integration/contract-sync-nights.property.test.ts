import fc from 'fast-check';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { SERVICE_DESK, serviceDesk } from '../helpers/person';

/**
 * Contract Sync night after night (issue 38): one register, one procurement feed (One Item per
 * Line Item; line External IDs global, PO-3-L2; scope External ID starts with PO-; the guard at
 * 100 %) and a random sequence of 5 to 10 nights, under Line Items Keep or Remove Them (the
 * source owns the lines shaped like its own) and Missing Records Keep or Delete. Between nights
 * orders appear, vanish for a night and come back, lines are added, cancelled and change amount, a
 * line moves to another order (a re-issued order: the old one stays without it, or vanishes),
 * some nights an order's PO number is on its first row only (merged cells), a person at the
 * service desk (HTTP) adds a line of their own (MANUAL-<n>), writes contract notes or a line's
 * notes, and some nights are a dry run approved and applied (Apply Only Plan), sometimes with a
 * person's edit in between. After each night:
 *
 * - the register is what the model says (written from docs/contract-sync.md and the issue, not
 *   from the code): the orders the export has equal it on the owned fields and lines, lines it no
 *   longer has kept or removed (never a MANUAL line, nothing on a night of merged cells), a moved
 *   line taken only where its order loses it in the same run, else that order refused naming both
 *   and left as it is, missing contracts kept or deleted (never on a night of merged cells);
 * - the output says so: the rows refused, each contract's action, one PUT per contract created or
 *   updated and one DELETE per contract deleted, nothing else written;
 * - whatever the model says: no line on two orders, the amounts in scope no more than the feed's
 *   and the lines kept (each line once), MANUAL lines and notes still there unless their contract
 *   was deleted as missing, the contract of another source untouched;
 * - an approved apply writes exactly its dry run's plan (same plan id, actions and changes), or,
 *   when a person edited a contract the plan touches in between, is refused with nothing written;
 * - the same night run again writes nothing.
 *
 * A line that moves to another order is the same line there: what a person wrote on it (its
 * notes) moves with it, and is never cleared.
 *
 * fast-check prints the seed and path of a failure, with the nights as played: replay with
 * SYNC_SEED=<seed> SYNC_PATH=<path>. SYNC_NIGHTS_RUNS sets the number of cases (default 8),
 * SYNC_SHRINK=1 shrinks a failure (replaying it many times), SYNC_NIGHTS_STATS=1 prints what the
 * cases exercised.
 */

const node = new StockroomContract();
const SCOPE = 'externalId sw "PO-"';
const OUT_OF_SCOPE = 'CON-1';
const PERSON = { userId: 'u1', name: 'Procurement', email: 'procurement@example.com' };

// ---------------------------------------------------------------------------------------------
// The feed: orders of the purchasing system, each with its lines
// ---------------------------------------------------------------------------------------------

interface FeedLine {
	/** Global across the register: PO-3-L2 keeps its key when it moves to another order. */
	key: string;
	description: string;
	amount: number;
}
interface FeedOrder {
	n: number;
	ref: string;
	vendorName: string;
	agreementDate: string;
	type: string;
	lines: FeedLine[];
}
interface Feed {
	orders: Map<number, FeedOrder>;
	nextOrder: number;
	/** The next line number of each order's own lines: a key is never given twice. */
	nextLine: Map<number, number>;
}

const orderKey = (n: number) => `PO-${n}`;
const VENDORS = ['Acme Software', 'Globex', 'Initech'];
const amountOf = (x: number) => 10 * (1 + (x % 40));

// ---------------------------------------------------------------------------------------------
// What a case is: settings, the first orders, and the nights (choices read against the state)
// ---------------------------------------------------------------------------------------------

type OpKind =
	'newOrder' | 'addLine' | 'cancelLine' | 'amount' | 'field' | 'type' | 'move' | 'dropOrder';
interface Op {
	kind: OpKind;
	a: number;
	b: number;
	c: number;
}
type EditKind = 'manual' | 'notes' | 'lineNotes';
interface Edit {
	kind: EditKind;
	pick: number;
	line: number;
}
type RunMode = 'run' | 'dryApply' | 'dryEditApply';
interface Night {
	ops: Op[];
	/** Orders the export leaves out tonight (picks among the orders). */
	absent: number[];
	/** An order whose PO number is on its first row only tonight (a pick), if any. */
	merged?: number;
	/** A person's edits at the service desk before the night's run. */
	edits: Edit[];
	mode: RunMode;
	/** The edit between the dry run and the apply (dryEditApply): on a contract the plan touches, or not. */
	between: Edit & { touched: boolean };
}
interface Case {
	missingLineItems: 'keep' | 'remove';
	missingRecords: 'keep' | 'delete';
	/** The lines of each order of the first export (which the register holds already). */
	first: number[];
	amounts: number[];
	nights: Night[];
}

const op: fc.Arbitrary<Op> = fc.record({
	kind: fc.constantFrom<OpKind>(
		'newOrder',
		'addLine',
		'addLine',
		'cancelLine',
		'cancelLine',
		'amount',
		'amount',
		'field',
		'type',
		'move',
		'move',
		'move',
		'move',
		'dropOrder',
	),
	a: fc.nat(99),
	b: fc.nat(99),
	c: fc.nat(99),
});
const edit: fc.Arbitrary<Edit> = fc.record({
	kind: fc.constantFrom<EditKind>('manual', 'notes', 'lineNotes'),
	pick: fc.nat(99),
	line: fc.nat(99),
});
const night: fc.Arbitrary<Night> = fc.record(
	{
		ops: fc.array(op, { maxLength: 3 }),
		absent: fc.oneof(
			{ weight: 3, arbitrary: fc.constant<number[]>([]) },
			{ weight: 2, arbitrary: fc.array(fc.nat(99), { minLength: 1, maxLength: 2 }) },
		),
		merged: fc.oneof(
			{ weight: 3, arbitrary: fc.constant(undefined) },
			{ weight: 1, arbitrary: fc.nat(99) },
		),
		edits: fc.oneof(
			{ weight: 1, arbitrary: fc.constant<Edit[]>([]) },
			{ weight: 1, arbitrary: fc.array(edit, { minLength: 1, maxLength: 2 }) },
		),
		mode: fc.constantFrom<RunMode>('run', 'run', 'dryApply', 'dryEditApply'),
		between: fc.record({
			kind: fc.constantFrom<EditKind>('manual', 'notes', 'lineNotes'),
			pick: fc.nat(99),
			line: fc.nat(99),
			touched: fc.boolean(),
		}),
	},
	{ requiredKeys: ['ops', 'absent', 'edits', 'mode', 'between'] },
);
const cases: fc.Arbitrary<Case> = fc.record({
	missingLineItems: fc.constantFrom('keep', 'remove'),
	missingRecords: fc.constantFrom('keep', 'delete'),
	first: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 4 }),
	amounts: fc.array(fc.nat(99), { minLength: 12, maxLength: 12 }),
	nights: fc.array(night, { minLength: 5, maxLength: 10 }),
});

/** The first export: orders PO-1… with their lines. */
function firstFeed(c: Case): Feed {
	const feed: Feed = { orders: new Map(), nextOrder: c.first.length + 1, nextLine: new Map() };
	c.first.forEach((count, index) => {
		const n = index + 1;
		const lines = Array.from({ length: count }, (_, l) => ({
			key: `${orderKey(n)}-L${l + 1}`,
			description: `Item ${n}.${l + 1}`,
			amount: amountOf(c.amounts[(index * 3 + l) % c.amounts.length]),
		}));
		feed.orders.set(n, {
			n,
			ref: `REF-${n}`,
			vendorName: VENDORS[n % VENDORS.length],
			agreementDate: '2025-01-15',
			type: 'PurchaseOrder',
			lines,
		});
		feed.nextLine.set(n, count + 1);
	});
	return feed;
}

const pick = <T>(list: readonly T[], index: number): T | undefined =>
	list.length ? list[index % list.length] : undefined;
const sortedOrders = (feed: Feed) => [...feed.orders.values()].sort((x, y) => x.n - y.n);
const newLine = (feed: Feed, n: number, amount: number): FeedLine => {
	const l = feed.nextLine.get(n) ?? 1;
	feed.nextLine.set(n, l + 1);
	return { key: `${orderKey(n)}-L${l}`, description: `Item ${n}.${l}`, amount };
};
const newOrder = (feed: Feed, lines: (n: number) => FeedLine[]): FeedOrder => {
	const n = feed.nextOrder++;
	const order: FeedOrder = {
		n,
		ref: `REF-${n}`,
		vendorName: VENDORS[n % VENDORS.length],
		agreementDate: '2025-03-01',
		type: n % 2 ? 'PurchaseOrder' : 'OrderForm',
		lines: [],
	};
	feed.orders.set(n, order);
	order.lines = lines(n);
	return order;
};

/**
 * Carries out one change of the purchasing system; says what it did (undefined: nothing). Every
 * order keeps at least one line.
 */
function change(feed: Feed, { kind, a, b, c }: Op): string | undefined {
	const orders = sortedOrders(feed);
	const order = pick(orders, a);
	if (kind === 'newOrder') {
		const created = newOrder(feed, (n) =>
			Array.from({ length: 1 + (b % 3) }, (_, i) => newLine(feed, n, amountOf(c + i * 7))),
		);
		return `new order ${orderKey(created.n)} (${created.lines.map((line) => line.key).join(', ')})`;
	}
	if (!order) return undefined;
	const key = orderKey(order.n);
	switch (kind) {
		case 'addLine': {
			const line = newLine(feed, order.n, amountOf(b));
			order.lines.push(line);
			return `${key} gets line ${line.key} (${line.amount})`;
		}
		case 'cancelLine': {
			const candidates = orders.filter((given) => given.lines.length > 1);
			const from = pick(candidates, a);
			if (!from) return undefined;
			const [line] = from.lines.splice(b % from.lines.length, 1);
			return `${orderKey(from.n)} cancels line ${line.key}`;
		}
		case 'amount': {
			const line = pick(order.lines, b)!;
			const before = line.amount;
			line.amount += 10 * (1 + (c % 5));
			if (c % 4 === 0) line.description = `${line.description} (revised)`;
			return `${key} line ${line.key} amount ${before} -> ${line.amount}${c % 4 === 0 ? ', description revised' : ''}`;
		}
		case 'field': {
			const which = b % 3;
			if (which === 0) order.vendorName = VENDORS[(VENDORS.indexOf(order.vendorName) + 1) % 3];
			else if (which === 1) order.ref = `${order.ref}/${c % 10}`;
			else order.agreementDate = order.agreementDate === '2025-01-15' ? '2025-02-01' : '2025-01-15';
			const field = ['vendorName', 'ref', 'agreementDate'][which] as keyof FeedOrder;
			return `${key} ${field} -> ${String(order[field])}`;
		}
		case 'type':
			order.type = order.type === 'PurchaseOrder' ? 'OrderForm' : 'PurchaseOrder';
			return `${key} type -> ${order.type} (set only when creating)`;
		case 'dropOrder':
			if (orders.length < 2) return undefined;
			feed.orders.delete(order.n);
			return `${key} closed: gone from the feed for good`;
		case 'move': {
			const line = pick(order.lines, b)!;
			const others = orders.filter((other) => other !== order);
			const index = c % (others.length + 1);
			const stays = Math.floor(c / 7) % 2 === 0 && order.lines.length > 1;
			const target = index < others.length ? others[index] : newOrder(feed, () => [] as FeedLine[]);
			order.lines = order.lines.filter((given) => given !== line);
			target.lines.push(line);
			if (!stays) feed.orders.delete(order.n);
			return `line ${line.key} moves ${key} -> ${orderKey(target.n)}${index < others.length ? '' : ' (a new order)'}; ${key} ${stays ? 'stays in the feed without it' : 'vanishes from the feed (re-issued)'}`;
		}
	}
	return undefined;
}

/** Tonight's export: the orders it has, and its rows. */
interface Tonight {
	orders: FeedOrder[];
	/** The order whose PO number is on its first row only. */
	merged?: number;
	rows: IDataObject[];
	/** Each order's row indexes, and the rows without a PO number. */
	items: Map<string, number[]>;
	blankRows: number[];
}

function tonightOf(feed: Feed, n: Night): Tonight {
	const all = sortedOrders(feed);
	const absent = new Set(n.absent.map((index) => all[index % all.length]?.n));
	let orders = all.filter((order) => !absent.has(order.n));
	if (!orders.length) orders = all.slice(0, 1);
	const mergeable = orders.filter((order) => order.lines.length > 1);
	const merged = n.merged === undefined ? undefined : pick(mergeable, n.merged)?.n;
	const rows: IDataObject[] = [];
	const items = new Map<string, number[]>();
	const blankRows: number[] = [];
	for (const order of orders) {
		const indexes: number[] = [];
		order.lines.forEach((line, index) => {
			const blank = order.n === merged && index > 0;
			if (blank) blankRows.push(rows.length);
			else indexes.push(rows.length);
			rows.push({
				externalId: blank ? '' : orderKey(order.n),
				ref: order.ref,
				type: order.type,
				vendorName: order.vendorName,
				agreementDate: order.agreementDate,
				'lineItem.externalId': line.key,
				'lineItem.description': line.description,
				'lineItem.amount': String(line.amount),
			});
		});
		items.set(orderKey(order.n), indexes);
	}
	return { orders, merged, rows, items, blankRows };
}

const feedSaid = (tonight: Tonight) =>
	tonight.orders
		.map(
			(order) =>
				`${orderKey(order.n)}${order.n === tonight.merged ? '(merged cells)' : ''}[${order.lines.map((line) => `${line.key.replace(/^PO-\d+-/, '')}${line.key.startsWith(`${orderKey(order.n)}-`) ? '' : `(${line.key})`}=${line.amount}`).join(' ')}]`,
		)
		.join(' ');

// ---------------------------------------------------------------------------------------------
// The model of the register, and what a night makes of it (from the spec)
// ---------------------------------------------------------------------------------------------

interface ModelLine {
	key: string;
	description: string;
	amount: number;
	notes?: string;
}
interface ModelContract {
	key: string;
	ref: string;
	vendorName: string;
	agreementDate: string;
	type: string;
	notes?: string;
	lines: ModelLine[];
}
type Register = Map<string, ModelContract>;
type Action = 'created' | 'updated' | 'unchanged' | 'deleted' | 'missing' | 'failed';

/** A line External ID shaped like the feed's (PO-3-L2): Remove Them may remove it; MANUAL-1 never. */
const sourceShaped = (key: string) => /^PO-\d+-L\d+$/i.test(key);

interface Prediction {
	after: Register;
	actions: Map<string, Action>;
	/** Orders refused because a line would count twice: the order it arrives at -> where it is. */
	refused: Map<string, { line: string; from: string }>;
	/** The rows that fail: the refused orders' first rows, the rows without a PO number. */
	errorRows: number[];
	/** The line amounts the feed sets tonight (lines of the orders synced). */
	synced: Map<string, number>;
	mergedNight: boolean;
}

const cloneRegister = (register: Register): Register =>
	new Map([...register].map(([key, contract]) => [key, structuredClone(contract)]));

/** The owned part of a contract: what a sync compares. */
const ownedOf = (contract: ModelContract) => ({
	ref: contract.ref,
	vendorName: contract.vendorName,
	agreementDate: contract.agreementDate,
	lines: [...contract.lines]
		.map((line) => ({ key: line.key, description: line.description, amount: line.amount }))
		.sort((x, y) => x.key.localeCompare(y.key)),
});

function predict(register: Register, tonight: Tonight, c: Case): Prediction {
	const mergedNight = tonight.merged !== undefined;
	// a row without a PO number may be any order's: no line removal, no contract deletion
	const removesLines = c.missingLineItems === 'remove' && !mergedNight;
	const deletesMissing = c.missingRecords === 'delete' && !mergedNight;
	// what each order in the export gives: a merged order, only its first row's line
	const given = new Map<string, { order: FeedOrder; lines: FeedLine[] }>();
	for (const order of tonight.orders)
		given.set(orderKey(order.n), {
			order,
			lines: order.n === tonight.merged ? order.lines.slice(0, 1) : order.lines,
		});
	const holder = new Map<string, string>();
	for (const contract of register.values())
		for (const line of contract.lines) holder.set(line.key, contract.key);

	// a line the feed moves arrives only where the order it is on loses it in this run
	const refused = new Map<string, { line: string; from: string }>();
	const loses = (from: string, line: string) => {
		const source = given.get(from);
		if (!source) return deletesMissing;
		if (refused.has(from)) return false;
		if (source.lines.some((other) => other.key === line)) return false;
		return removesLines && sourceShaped(line);
	};
	for (let changed = true; changed;) {
		changed = false;
		for (const [key, source] of given) {
			if (refused.has(key)) continue;
			for (const line of source.lines) {
				const from = holder.get(line.key);
				if (from === undefined || from === key || loses(from, line.key)) continue;
				refused.set(key, { line: line.key, from });
				changed = true;
				break;
			}
		}
	}

	/**
	 * A line the feed gives that the contract does not have: a new line with the feed's values, or
	 * one that moves here from where it was, the same line: what a person wrote on it comes along.
	 */
	const arriving = (line: FeedLine): ModelLine => {
		const from = holder.get(line.key);
		const notes = from && register.get(from)!.lines.find((l) => l.key === line.key)?.notes;
		return { ...line, ...(notes !== undefined ? { notes } : {}) };
	};
	const after = cloneRegister(register);
	const actions = new Map<string, Action>();
	const synced = new Map<string, number>();
	for (const [key, { order, lines }] of given) {
		if (refused.has(key)) {
			actions.set(key, 'failed');
			continue;
		}
		for (const line of lines) synced.set(line.key, line.amount);
		const before = register.get(key);
		if (!before) {
			after.set(key, {
				key,
				ref: order.ref,
				vendorName: order.vendorName,
				agreementDate: order.agreementDate,
				type: order.type,
				lines: lines.map(arriving),
			});
			actions.set(key, 'created');
			continue;
		}
		const contract = after.get(key)!;
		Object.assign(contract, {
			ref: order.ref,
			vendorName: order.vendorName,
			agreementDate: order.agreementDate,
		});
		for (const line of lines) {
			const stored = contract.lines.find((other) => other.key === line.key);
			if (stored) Object.assign(stored, { description: line.description, amount: line.amount });
			else contract.lines.push(arriving(line));
		}
		if (removesLines)
			contract.lines = contract.lines.filter(
				(line) => !sourceShaped(line.key) || lines.some((other) => other.key === line.key),
			);
		actions.set(
			key,
			JSON.stringify(ownedOf(contract)) === JSON.stringify(ownedOf(before))
				? 'unchanged'
				: 'updated',
		);
	}
	for (const key of register.keys()) {
		if (given.has(key)) continue;
		if (deletesMissing) {
			after.delete(key);
			actions.set(key, 'deleted');
		} else actions.set(key, 'missing');
	}
	const errorRows = [
		...[...refused.keys()].map((key) => tonight.items.get(key)![0]),
		...tonight.blankRows,
	].sort((x, y) => x - y);
	return { after, actions, refused, errorRows, synced, mergedNight };
}

// ---------------------------------------------------------------------------------------------
// The register as the service has it, in the model's form
// ---------------------------------------------------------------------------------------------

function modelOf(record: IDataObject): ModelContract {
	const lines = (Array.isArray(record.lineItems) ? record.lineItems : []) as IDataObject[];
	return {
		key: String(record.externalId),
		ref: String(record.ref),
		vendorName: String(record.vendorName),
		agreementDate: String(record.agreementDate).slice(0, 10),
		type: String(record.type),
		...(typeof record.notes === 'string' && record.notes ? { notes: record.notes } : {}),
		lines: lines.map((line) => ({
			key: typeof line.externalId === 'string' ? line.externalId : '(no External ID)',
			description: String(line.description),
			amount: Number(line.amount),
			...(typeof line.notes === 'string' && line.notes ? { notes: line.notes } : {}),
		})),
	};
}

/** A register compared: contracts by key, lines by key. */
const comparable = (register: Register) =>
	Object.fromEntries(
		[...register.keys()].sort().map((key) => {
			const contract = register.get(key)!;
			return [
				key,
				{
					...contract,
					lines: [...contract.lines].sort((x, y) => x.key.localeCompare(y.key)),
				},
			];
		}),
	);

const registerSaid = (register: Register) =>
	[...register.values()]
		.sort((x, y) => x.key.localeCompare(y.key))
		.map(
			(contract) =>
				`${contract.key}${contract.notes ? '(notes)' : ''}[${contract.lines.map((line) => `${line.key}=${line.amount}${line.notes ? '(notes)' : ''}`).join(' ')}]`,
		)
		.join(' ') || '(none)';

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

const DRY: Record<string, string> = {
	created: 'create',
	updated: 'update',
	deleted: 'delete',
	unchanged: 'unchanged',
	missing: 'missing',
};

interface Outcome {
	/** Contract key -> action, as the output says. */
	actions: Map<string, string>;
	changes: Map<string, unknown>;
	/** Row index -> error text. */
	errors: Map<number, string>;
	planId?: string;
}
function outcomeOf(items: INodeExecutionData[]): Outcome {
	const outcome: Outcome = { actions: new Map(), changes: new Map(), errors: new Map() };
	for (const item of items) {
		if (item.json.error) {
			outcome.errors.set((item.pairedItem as { item: number }).item, String(item.json.error));
			continue;
		}
		const key = String(item.json.externalId);
		outcome.actions.set(key, String(item.json.action));
		outcome.changes.set(key, item.json.changes);
		outcome.planId ??= item.json.planId as string | undefined;
	}
	return outcome;
}
const sortedEntries = <K extends string | number, T>(map: Map<K, T>) =>
	[...map].sort(([x], [y]) => String(x).localeCompare(String(y)));
/** A plan id without its basis (when the scope was read, its digest): the plan itself. */
const planOf = (id: string | undefined) =>
	id?.replace(/-t[0-9a-z]+-o[0-9a-f]+-i[0-9a-f]+-g[0-9a-f]+$/, '');

/** What the cases exercised (SYNC_NIGHTS_STATS=1 prints it). */
const tally = new Map<string, number>();
const count = (what: string, by = 1) => by && tally.set(what, (tally.get(what) ?? 0) + by);

const RUNS = Number(process.env.SYNC_NIGHTS_RUNS ?? 8);
const replay = () => {
	const { SYNC_SEED: seed, SYNC_PATH: path } = process.env;
	return seed ? { seed: Number(seed), path } : {};
};

describe('Contract Sync property: night after night, the register follows the feed and keeps what people add', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const person = serviceDesk(() => sandbox);
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 0, clients: [SERVICE_DESK] });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());

	const sync = async (
		c: Case,
		input: IDataObject[],
		run: { dryRun?: boolean; applyOnlyPlan?: string } = {},
	) =>
		(
			await runNode(node, {
				parameters: {
					operation: 'sync',
					// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
					maxFailedPercent: 100,
					inputShape: 'lineItemRows',
					fieldsToSync: ['ref', 'vendorName', 'agreementDate'],
					lineItemFieldsToSync: ['description', 'amount'],
					createOnlyFields: ['type'],
					filterMode: 'expression',
					filterExpression: SCOPE,
					missingRecords: c.missingRecords,
					missingLineItems: c.missingLineItems,
					maxRemovalPercent: 100,
					maxClearPercent: 100,
					dryRun: run.dryRun ?? false,
					...(run.applyOnlyPlan ? { applyOnlyPlan: run.applyOnlyPlan } : {}),
				} as never,
				credential,
				continueOnFail: true,
				input,
			})
		)[0];
	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');
	const inScope = (): Register =>
		new Map(
			sandbox.store.contracts
				.all()
				.filter((record) => String(record.externalId).startsWith('PO-'))
				.map((record) => [String(record.externalId), modelOf(record as IDataObject)]),
		);
	const snapshot = () => JSON.stringify(sandbox.store.contracts.all());

	async function play(c: Case, log: string[]): Promise<void> {
		sandbox.reset();
		const feed = firstFeed(c);
		// the register as an earlier sync left it, and one contract of another source
		const at = '2024-06-01T09:00:00.000Z';
		const stamps = {
			createdDtm: at,
			lastModifiedDtm: at,
			createdBy: PERSON,
			lastModifiedBy: PERSON,
		};
		for (const order of sortedOrders(feed))
			sandbox.store.contracts.put({
				...stamps,
				externalId: orderKey(order.n),
				ref: order.ref,
				type: order.type,
				vendorName: order.vendorName,
				agreementDate: order.agreementDate,
				lineItems: order.lines.map((line) => ({
					externalId: line.key,
					description: line.description,
					amount: line.amount,
				})),
				documents: [],
			});
		sandbox.store.contracts.put({
			...stamps,
			externalId: OUT_OF_SCOPE,
			ref: 'MSA-2019',
			type: 'MSA',
			vendorName: 'Umbrella',
			agreementDate: '2019-01-01',
			notes: 'another source',
			lineItems: [{ externalId: 'CON-1-L1', description: 'another source', amount: 5 }],
			documents: [],
		});
		const outOfScope = JSON.stringify(sandbox.store.contracts.findByExternalId(OUT_OF_SCOPE));
		let model = inScope();
		/** What people wrote by hand: by contract, its MANUAL lines and notes; line notes by line. */
		const manual = new Map<string, Set<string>>();
		const notes = new Map<string, string>();
		const lineNotes = new Map<string, { on: string; text: string }>();
		let written = 0;
		log.push(
			`settings: Line Items ${c.missingLineItems}, Missing Records ${c.missingRecords}`,
			`register at first: ${registerSaid(model)}`,
		);

		/** A person's edit at the service desk (HTTP), and the same on the model. */
		const personEdits = async (e: Edit, key: string, when: string) => {
			const contract = model.get(key)!;
			const k = ++written;
			if (e.kind === 'manual') {
				const line = { key: `MANUAL-${k}`, description: 'Freight agreed by phone', amount: 40 };
				await person.editContract(key, (current) => ({
					...current,
					lineItems: [
						...(current.lineItems as IDataObject[]),
						{ externalId: line.key, description: line.description, amount: line.amount },
					],
				}));
				contract.lines.push(line);
				manual.set(key, (manual.get(key) ?? new Set()).add(line.key));
				log.push(`  ${when}: a person adds line ${line.key} to ${key}`);
			} else if (e.kind === 'notes') {
				const text = `Called the vendor (${k})`;
				await person.editContract(key, (current) => ({ ...current, notes: text }));
				contract.notes = text;
				notes.set(key, text);
				log.push(`  ${when}: a person writes notes on ${key}`);
			} else {
				const line = pick(contract.lines, e.line);
				if (!line) return;
				const text = `Checked with finance (${k})`;
				await person.editContract(key, (current) => ({
					...current,
					lineItems: (current.lineItems as IDataObject[]).map((stored) =>
						stored.externalId === line.key ? { ...stored, notes: text } : stored,
					),
				}));
				line.notes = text;
				lineNotes.set(line.key, { on: key, text });
				log.push(`  ${when}: a person writes notes on line ${line.key} of ${key}`);
			}
		};

		/** A run that writes: its output, writes and register against the model's prediction. */
		const checkWritten = (
			items: INodeExecutionData[],
			expected: Prediction,
			ids: Map<string, string>,
			tonight: Tonight,
		) => {
			const outcome = outcomeOf(items);
			log.push(
				`  output: ${sortedEntries(outcome.actions)
					.map(([key, action]) => `${key} ${action}`)
					.join(
						', ',
					)}${outcome.errors.size ? `; error rows ${[...outcome.errors.keys()].join(', ')}` : ''}`,
			);
			// the rows refused: those without a PO number, and orders a moved line would count twice on
			expect({ errorRows: [...outcome.errors.keys()].sort((x, y) => x - y) }).toEqual({
				errorRows: expected.errorRows,
			});
			for (const [key, { line, from }] of expected.refused) {
				const error = outcome.errors.get(tonight.items.get(key)![0])!;
				expect(error).toContain(`Line Item ${line} `);
				expect(error).toContain(`"${from}"`);
				expect(error).toContain(`"${key}"`);
				expect(error).toContain('count twice');
			}
			const actions = new Map([...expected.actions].filter(([, action]) => action !== 'failed'));
			expect(sortedEntries(outcome.actions)).toEqual(sortedEntries(actions));
			// one PUT per contract created or updated, one DELETE per contract deleted: nothing else
			const calls = writes();
			expect({
				puts: calls
					.filter((call) => call.method === 'PUT')
					.map((call) => String((call.body as IDataObject).externalId))
					.sort(),
				deletes: calls
					.filter((call) => call.method === 'DELETE')
					.map((call) => call.path)
					.sort(),
			}).toEqual({
				puts: [...actions]
					.filter(([, action]) => action === 'created' || action === 'updated')
					.map(([key]) => key)
					.sort(),
				deletes: [...actions]
					.filter(([, action]) => action === 'deleted')
					.map(([key]) => `/api/contracts/v1/${ids.get(key)}`)
					.sort(),
			});
			const now = inScope();
			expect(comparable(now)).toEqual(comparable(expected.after));
			return { outcome, now };
		};

		/** What holds whatever the model says. */
		const invariants = (now: Register, before: Register, expected: Prediction) => {
			// a line is on one order at most
			const on = new Map<string, string[]>();
			for (const contract of now.values())
				for (const line of contract.lines)
					on.set(line.key, [...(on.get(line.key) ?? []), contract.key]);
			expect([...on].filter(([, keys]) => keys.length > 1)).toEqual([]);
			// the amounts add up to what the feed says and the lines kept, each line once
			const total = [...now.values()]
				.flatMap((contract) => contract.lines)
				.reduce((sum, line) => sum + line.amount, 0);
			const accounted = new Map(expected.synced);
			for (const contract of now.values())
				for (const line of contract.lines)
					if (!accounted.has(line.key)) accounted.set(line.key, line.amount);
			const feedAndKept = [...accounted.values()].reduce((sum, amount) => sum + amount, 0);
			expect({ total }).toEqual({ total: Math.min(total, feedAndKept) });
			// what people wrote stays, unless its contract was deleted as missing (never on a night of merged cells)
			for (const key of before.keys()) {
				if (now.has(key)) continue;
				expect({
					deleted: key,
					missingRecords: c.missingRecords,
					merged: expected.mergedNight,
				}).toEqual({ deleted: key, missingRecords: 'delete', merged: false });
				for (const line of before.get(key)!.lines) lineNotes.delete(line.key);
				manual.delete(key);
				notes.delete(key);
			}
			for (const [key, lines] of manual)
				expect({
					key,
					manual: now.get(key)?.lines.filter((line) => lines.has(line.key)).length,
				}).toEqual({
					key,
					manual: lines.size,
				});
			for (const [key, text] of notes)
				expect({ key, notes: now.get(key)?.notes }).toEqual({ key, notes: text });
			const lines = new Map(
				[...now.values()].flatMap((contract) =>
					contract.lines.map((line) => [line.key, { on: contract.key, line }]),
				),
			);
			for (const [key, { text }] of lineNotes) {
				const found = lines.get(key);
				// a line the feed cancelled (Remove Them) goes with its notes (the model says when)
				if (!found) lineNotes.delete(key);
				// on its order, or on the one it moved to: its notes with it
				else
					expect({ line: key, on: found.on, notes: found.line.notes }).toEqual({
						line: key,
						on: found.on,
						notes: text,
					});
			}
			expect(JSON.stringify(sandbox.store.contracts.findByExternalId(OUT_OF_SCOPE))).toBe(
				outOfScope,
			);
		};

		const idsNow = () =>
			new Map(
				sandbox.store.contracts.all().map((record) => [String(record.externalId), record.id]),
			);

		/** A dry run: the plan the model predicts, nothing written. */
		const dryRun = async (tonight: Tonight, expected: Prediction) => {
			const before = snapshot();
			sandbox.resetStats();
			const items = await sync(c, tonight.rows, { dryRun: true });
			const outcome = outcomeOf(items);
			expect(writes()).toEqual([]);
			expect(snapshot()).toBe(before);
			expect([...outcome.errors.keys()].sort((x, y) => x - y)).toEqual(expected.errorRows);
			expect(sortedEntries(outcome.actions)).toEqual(
				sortedEntries(
					new Map(
						[...expected.actions]
							.filter(([, action]) => action !== 'failed')
							.map(([key, action]) => [key, DRY[action]]),
					),
				),
			);
			return outcome;
		};

		/** The approved plan applied: exactly the dry run's. */
		const apply = async (
			tonight: Tonight,
			expected: Prediction,
			planned: Outcome,
			editedSince: boolean,
		) => {
			const ids = idsNow();
			sandbox.resetStats();
			const items = await sync(c, tonight.rows, { applyOnlyPlan: planned.planId });
			const { outcome, now } = checkWritten(items, expected, ids, tonight);
			// the same plan; its basis (the scope as read) moved only if someone edited since
			if (editedSince) expect(planOf(outcome.planId)).toBe(planOf(planned.planId));
			else expect(outcome.planId).toBe(planned.planId);
			expect({
				actions: sortedEntries(outcome.actions).map(([key, action]) => [key, DRY[action]]),
				changes: sortedEntries(outcome.changes),
			}).toEqual({
				actions: sortedEntries(planned.actions),
				changes: sortedEntries(planned.changes),
			});
			return now;
		};

		for (const [index, n] of c.nights.entries()) {
			log.push(`night ${index + 1}:`);
			for (const given of n.ops) {
				const said = change(feed, given);
				if (said) log.push(`  feed: ${said}`);
			}
			const tonight = tonightOf(feed, n);
			log.push(`  export: ${feedSaid(tonight)}`);
			for (const e of n.edits) {
				const key = pick([...model.keys()].sort(), e.pick);
				if (key) await personEdits(e, key, 'before the run');
			}
			const before = cloneRegister(model);
			let expected = predict(model, tonight, c);
			let now: Register;
			if (n.mode === 'run') {
				const ids = idsNow();
				sandbox.resetStats();
				now = checkWritten(await sync(c, tonight.rows), expected, ids, tonight).now;
			} else {
				log.push(
					`  dry run, then apply the plan${n.mode === 'dryEditApply' ? ' (an edit between)' : ''}`,
				);
				let planned = await dryRun(tonight, expected);
				let editedSince = false;
				expect(planned.planId).toMatch(/^p2-/);
				if (n.mode === 'dryEditApply') {
					const touched = sortedEntries(planned.actions)
						.filter(([, action]) => action === 'update' || action === 'delete')
						.map(([key]) => key);
					const others = [...model.keys()].filter((key) => !touched.includes(key)).sort();
					// on a contract the plan touches if asked and there is one, else on another
					const key =
						(n.between.touched && pick(touched, n.between.pick)) || pick(others, n.between.pick);
					if (key) {
						const isTouched = touched.includes(key);
						await personEdits(
							n.between,
							key,
							`between the dry run and the apply (${isTouched ? 'touched' : 'untouched'})`,
						);
						count(isTouched ? 'applies refused: edited since' : 'applies after an untouched edit');
						if (isTouched) {
							const edited = snapshot();
							sandbox.resetStats();
							const [refusal, ...rest] = await sync(c, tonight.rows, {
								applyOnlyPlan: planned.planId,
							});
							log.push(`  apply refused: ${String(refusal.json.error)}`);
							expect({ error: refusal.json.error, rest }).toEqual({
								error: expect.stringMatching(/^Sync refused: the plan is not the one approved/),
								rest: [],
							});
							expect(refusal.json.error).toContain(key);
							expect(writes()).toEqual([]);
							expect(snapshot()).toBe(edited);
							// the person approves the plan again
							log.push('  dry run again, then apply');
						}
						expected = predict(model, tonight, c);
						if (isTouched) planned = await dryRun(tonight, expected);
						else editedSince = true;
					}
				}
				now = await apply(tonight, expected, planned, editedSince);
			}
			invariants(now, before, expected);
			const where = new Map(
				[...before.values()].flatMap((contract) =>
					contract.lines.map((line) => [line.key, contract.key]),
				),
			);
			const arrived = [...now.values()].flatMap((contract) =>
				contract.lines.filter(
					(line) => where.has(line.key) && where.get(line.key) !== contract.key,
				),
			);
			count('nights');
			count(`nights: ${n.mode}`);
			count('nights with merged cells', expected.mergedNight ? 1 : 0);
			count('lines moved to another order', arrived.length);
			const noted = new Set(
				[...before.values()].flatMap((contract) =>
					contract.lines.filter((line) => line.notes).map((line) => line.key),
				),
			);
			count(
				'moved lines a person wrote notes on',
				arrived.filter((line) => noted.has(line.key)).length,
			);
			count('orders refused: a line would count twice', expected.refused.size);
			count(
				'contracts deleted',
				[...expected.actions.values()].filter((a) => a === 'deleted').length,
			);
			count(
				'contracts created',
				[...expected.actions.values()].filter((a) => a === 'created').length,
			);
			count(
				'lines removed',
				[...before.values()]
					.flatMap((contract) => contract.lines)
					.filter(
						(line) =>
							![...now.values()].some((contract) =>
								contract.lines.some((other) => other.key === line.key),
							),
					).length,
			);
			model = now;
			log.push(`  register: ${registerSaid(model)}`);

			// the same night again writes nothing
			sandbox.resetStats();
			const again = outcomeOf(await sync(c, tonight.rows));
			expect({
				writes: writes().map((call) => `${call.method} ${call.path}`),
				actions: [...again.actions.values()].filter(
					(action) => !['unchanged', 'missing'].includes(action),
				),
				errorRows: [...again.errors.keys()].sort((x, y) => x - y),
			}).toEqual({ writes: [], actions: [], errorRows: expected.errorRows });
			expect(comparable(inScope())).toEqual(comparable(model));
		}
	}

	test(
		'random nights of a procurement feed',
		async () => {
			await fc.assert(
				fc.asyncProperty(cases, async (c) => {
					const log: string[] = [];
					try {
						await play(c, log);
					} catch (error) {
						const failed = error as Error;
						failed.message = `Nights as played:\n${log.join('\n')}\n\n${failed.message}`;
						throw failed;
					}
				}),
				{
					...replay(),
					numRuns: RUNS,
					endOnFailure: process.env.SYNC_SHRINK !== '1',
				},
			);
			if (process.env.SYNC_NIGHTS_STATS)
				console.log(
					[...tally]
						.sort()
						.map(([what, n]) => `${what}: ${n}`)
						.join('\n'),
				);
		},
		Math.max(120_000, RUNS * 15_000),
	);
});
