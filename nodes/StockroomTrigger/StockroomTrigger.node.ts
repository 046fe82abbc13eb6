import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';
import { DateTime } from 'luxon';
import { optionsProperty, pageSizeOption, readRetryPolicy } from '../shared/descriptions/common';
import { filterProperties } from '../shared/descriptions/filterUi';
import { showWhen } from '../shared/descriptions/showFor';
import { readFilter } from '../shared/filterInput';
import { getAssetFilterFields } from '../shared/methods/loadOptions';
import { customFieldTypesFrom, fetchCustomFieldDefinitions } from '../shared/resources';
import { assetSchema } from '../shared/schema/asset';
import { contractSchema } from '../shared/schema/contract';
import type { RetryPolicy } from '../shared/transport';
import { latestChange, pollChanges, type ChangeState } from './changes';
import { changeEvent, EVENT_LABELS, EVENT_OPTIONS, type EventName, type Resource } from './events';
import { PollTurns } from './pollTurns';
import { firstDue, pollRenewals, type RenewalState } from './renewals';
import { requireSupportedN8n } from '../shared/supportedN8n';

requireSupportedN8n();

/** Which polls may run, by workflow and node (see pollTurns.ts). */
const pollTurns = new PollTurns();

/** "Fetch Test Event" shows a real record, or says plainly why there is none. */
async function sampleOrExplain(
	context: IPollFunctions,
	pending: Promise<IDataObject | undefined>,
	nothing: string,
): Promise<IDataObject> {
	const record = await pending;
	if (!record) {
		throw new NodeOperationError(context.getNode(), `Nothing to show yet: ${nothing}`, {
			description: 'Create or change a matching record, or loosen the filter, then fetch again.',
		});
	}
	return record;
}

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Asset', value: 'assets' },
			{ name: 'Contract', value: 'contracts' },
		],
		default: 'assets',
	},
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: EVENT_OPTIONS.assets,
		default: 'assetSynced',
		displayOptions: { show: { resource: ['assets'] } },
	},
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: EVENT_OPTIONS.contracts,
		default: 'contractAgreementDated',
		displayOptions: { show: { resource: ['contracts'] } },
	},
	{
		displayName: 'Notice Within (Days)',
		name: 'withinDays',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 30,
		description:
			'Emit a contract when its last day to give notice is at most this many days away (or has passed before the renewal)',
		displayOptions: { show: { resource: ['contracts'], event: ['renewalNoticeDue'] } },
	},
	...showWhen(
		{ resource: ['assets'] },
		filterProperties(assetSchema, {
			loadFieldsMethod: 'getAssetFilterFields',
			resourceLabel: 'the assets to watch',
		}),
	),
	...showWhen(
		{ resource: ['contracts'] },
		filterProperties(contractSchema, {
			listField: 'lineItems',
			resourceLabel: 'the contracts to watch',
		}),
	),
	optionsProperty(
		{
			displayName: 'Existing Records at First Run',
			name: 'firstRun',
			type: 'options',
			options: [
				{
					name: 'Ignore (From Now On)',
					value: 'fromNow',
					description: 'Only changes made after the workflow is activated',
				},
				{
					name: 'Include',
					value: 'includeExisting',
					description: 'Also emit existing records once, up to Max Existing Records',
				},
			],
			default: 'fromNow',
		},
		{
			displayName: 'Lookback (Minutes)',
			name: 'lookbackMinutes',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 1,
			description:
				"How far back on the service's own clock each poll reads again, for writes the service makes visible late. Records read again are not emitted twice.",
			displayOptions: { hide: { '/event': ['renewalNoticeDue'] } },
		},
		{
			displayName: 'Max Existing Records',
			name: 'maxExisting',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 100,
			description:
				'With Include at first run, at most this many existing records are emitted (the most recent)',
		},
		pageSizeOption(),
	),
];

export class StockroomTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stockroom Trigger',
		name: 'stockroomTrigger',
		icon: { light: 'file:../../icons/stockroom.svg', dark: 'file:../../icons/stockroom.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: `={{ ${JSON.stringify(EVENT_LABELS)}[$parameter["event"]] }}`,
		description:
			'Starts the workflow when assets sync, agreements are signed, records change or renewal notices come due',
		defaults: { name: 'Stockroom Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'stockroomOAuth2Api', required: true }],
		properties,
	};

	methods = { loadOptions: { getAssetFilterFields } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		if (this.getMode() === 'manual') return await sample(this);
		// n8n 2.x gives each poll a time budget (1.x has none); stop reading well before it runs out
		const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : 5 * 60_000;
		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id ?? this.getNode().name}`;
		const staticData = this.getWorkflowStaticData('node');
		if (!pollTurns.begin(key, staticData)) return null;
		let changed = false;
		try {
			const result = await scheduledPoll(this, staticData, budget);
			changed = result.changed;
			return result.emit;
		} finally {
			pollTurns.finish(key, staticData, changed);
		}
	}
}

const MIN_TURN_MS = 5000;

const withTimeoutWithin = (policy: RetryPolicy, capMs: number): RetryPolicy => ({
	...policy,
	timeoutMs: Math.max(1000, Math.min(policy.timeoutMs, capMs)),
});

/** What every event reads: resource, event, filter and the options that shape the requests. */
async function readSettings(context: IPollFunctions, budget: number) {
	const resource = context.getNodeParameter('resource', 'assets') as Resource;
	const eventName = context.getNodeParameter('event') as EventName;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const schema = resource === 'contracts' ? contractSchema : assetSchema;
	const timezone = context.getTimezone();
	const startedAt = Date.now();
	// every request and retry wait ends within the turn (at least a few seconds, for tests of one page)
	const retry: RetryPolicy = {
		// one request that hangs must not outlast the poll
		...withTimeoutWithin(readRetryPolicy(options), budget / 4),
		deadline: startedAt + Math.max(budget * 0.9, MIN_TURN_MS),
	};
	const filter = await readFilter(schema, {
		getParameter: (name, fallback) => context.getNodeParameter(name, fallback),
		timezone,
		listField: resource === 'contracts' ? 'lineItems' : undefined,
		customFieldTypes:
			resource === 'assets'
				? customFieldTypesFrom(
						async () => await fetchCustomFieldDefinitions.call(context, undefined, retry),
					)
				: undefined,
	});
	const common = {
		filter,
		firstRun:
			options.firstRun === 'includeExisting' ? ('includeExisting' as const) : ('fromNow' as const),
		maxExisting: Number(options.maxExisting ?? 100),
		pageSize: Number(options.pageSize ?? 1000),
		retry,
		withinBudget: () => Date.now() - startedAt < budget * 0.75,
		stateKey: `${resource}:${eventName}`,
	};
	const tag = (records: IDataObject[]) => [
		context.helpers.returnJsonArray(records.map((record) => ({ ...record, event: eventName }))),
	];
	if (eventName === 'renewalNoticeDue') {
		return {
			kind: 'renewals' as const,
			tag,
			settings: {
				...common,
				operation: 'check contracts for renewal notices',
				withinDays: Number(context.getNodeParameter('withinDays', 30)),
				today: DateTime.now().setZone(timezone).toISODate() as string,
			},
		};
	}
	const event = changeEvent(eventName, resource);
	return {
		kind: 'changes' as const,
		tag,
		settings: {
			...common,
			event,
			operation: `check ${resource} for changes`,
			lookbackMs: Number(options.lookbackMinutes ?? 1) * 60_000,
		},
	};
}

/** "Fetch Test Event": a real record, touching no state. */
async function sample(context: IPollFunctions): Promise<INodeExecutionData[][]> {
	const poll = await readSettings(context, 5 * 60_000);
	if (poll.kind === 'renewals') {
		return poll.tag([
			await sampleOrExplain(
				context,
				firstDue(context, poll.settings),
				'no contract has a renewal notice due within that window',
			),
		]);
	}
	return poll.tag([
		await sampleOrExplain(
			context,
			latestChange(context, poll.settings),
			`no ${poll.settings.event.noun} matches the event and filter`,
		),
	]);
}

/**
 * A scheduled poll: reads from the stored state, stores the new state, emits what is new; says
 * whether the state changed (an idle poll leaves it byte for byte as it was).
 */
async function scheduledPoll(
	context: IPollFunctions,
	staticData: IDataObject,
	budget: number,
): Promise<{ emit: INodeExecutionData[][] | null; changed: boolean }> {
	const poll = await readSettings(context, budget);
	const name = poll.kind === 'renewals' ? 'renewals' : 'changes';
	const stored = staticData[name] as (RenewalState & ChangeState) | undefined;
	const previous = stored?.key === poll.settings.stateKey ? stored : undefined;
	const { state, emit } =
		poll.kind === 'renewals'
			? await pollRenewals(context, poll.settings, previous)
			: await pollChanges(context, poll.settings, previous);
	const changed = state !== stored;
	if (changed) staticData[name] = state as unknown as IDataObject;
	return { emit: emit.length ? poll.tag(emit) : null, changed };
}
