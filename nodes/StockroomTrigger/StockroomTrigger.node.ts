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
import { optionsProperty, readRetryPolicy } from '../shared/descriptions/common';
import { filterProperties } from '../shared/descriptions/filterUi';
import { showWhen } from '../shared/descriptions/showFor';
import { readFilter } from '../shared/filterInput';
import { getAssetFilterFields } from '../shared/methods/loadOptions';
import { customFieldTypesFrom, fetchCustomFieldDefinitions } from '../shared/resources';
import { assetSchema } from '../shared/schema/asset';
import { contractSchema } from '../shared/schema/contract';
import { latestChange, pollChanges } from './changes';
import type { ChangeState } from './cursor';
import { changeEvent, EVENT_OPTIONS, type EventName, type Resource } from './events';
import { firstDue, pollRenewals, type RenewalState } from './renewals';

const DATE_EVENTS = ['contractAgreementDated'];

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
			displayName: 'Lookback (Days)',
			name: 'lookbackDays',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 1,
			description:
				'How far behind the newest date seen each poll looks again, to catch dates entered late. Changes found again are not emitted twice.',
			displayOptions: { show: { '/event': DATE_EVENTS } },
		},
		{
			displayName: 'Lookback (Minutes)',
			name: 'lookbackMinutes',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 5,
			description:
				'How far behind the newest time seen each poll looks again, to catch values written late or clocks that differ. Changes found again are not emitted twice.',
			displayOptions: { hide: { '/event': [...DATE_EVENTS, 'renewalNoticeDue'] } },
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
		{
			displayName: 'Page Size',
			name: 'pageSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000 },
			default: 1000,
			description: 'Records per request',
		},
	),
];

export class StockroomTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stockroom Trigger',
		name: 'stockroomTrigger',
		icon: { light: 'file:../../icons/stockroom.svg', dark: 'file:../../icons/stockroom.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
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
		const resource = this.getNodeParameter('resource', 'assets') as Resource;
		const eventName = this.getNodeParameter('event') as EventName;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const schema = resource === 'contracts' ? contractSchema : assetSchema;
		const timezone = this.getTimezone();
		const filter = await readFilter(schema, {
			getParameter: (name, fallback) => this.getNodeParameter(name, fallback),
			timezone,
			listField: resource === 'contracts' ? 'lineItems' : undefined,
			customFieldTypes:
				resource === 'assets'
					? customFieldTypesFrom(async () => await fetchCustomFieldDefinitions.call(this))
					: undefined,
		});
		const startedAt = Date.now();
		// n8n 2.x gives each poll a time budget; stop reading well before it runs out
		const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : 5 * 60_000;
		const common = {
			filter,
			firstRun:
				options.firstRun === 'includeExisting'
					? ('includeExisting' as const)
					: ('fromNow' as const),
			maxExisting: Number(options.maxExisting ?? 100),
			pageSize: Number(options.pageSize ?? 1000),
			retry: readRetryPolicy(options),
			withinBudget: () => Date.now() - startedAt < budget * 0.75,
			stateKey: `${resource}:${eventName}`,
		};
		const staticData = this.getWorkflowStaticData('node');
		const manual = this.getMode() === 'manual';
		const tag = (records: IDataObject[]) => [
			this.helpers.returnJsonArray(records.map((record) => ({ ...record, event: eventName }))),
		];

		if (eventName === 'renewalNoticeDue') {
			const settings = {
				...common,
				withinDays: Number(this.getNodeParameter('withinDays', 30)),
				today: DateTime.now().setZone(timezone).toISODate() as string,
			};
			if (manual)
				return tag([
					await sampleOrExplain(
						this,
						firstDue(this, settings),
						'no contract has a renewal notice due within that window',
					),
				]);
			const previous = staticData.renewals as RenewalState | undefined;
			const { state, emit } = await pollRenewals(
				this,
				settings,
				previous?.key === common.stateKey ? previous : undefined,
			);
			staticData.renewals = state as unknown as IDataObject;
			return emit.length ? tag(emit) : null;
		}

		const event = changeEvent(eventName, resource);
		const lookbackMs =
			event.kind === 'date'
				? Number(options.lookbackDays ?? 1) * 86_400_000
				: Number(options.lookbackMinutes ?? 5) * 60_000;
		const settings = { ...common, event, lookbackMs, now: Date.now() };
		if (manual)
			return tag([
				await sampleOrExplain(
					this,
					latestChange(this, settings),
					`no ${resource === 'contracts' ? 'contract' : 'asset'} matches the event and filter`,
				),
			]);
		const previous = staticData.changes as ChangeState | undefined;
		const { state, emit } = await pollChanges(
			this,
			settings,
			previous?.key === common.stateKey ? previous : undefined,
		);
		staticData.changes = state as unknown as IDataObject;
		return emit.length ? tag(emit) : null;
	}
}
