import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_PLACEHOLDER_KEYS } from './keys';

/** How a Sync's form speaks of its records. */
export interface FormWords {
	/** "asset". */
	noun: string;
	/** "assets". */
	nouns: string;
	/** What a placeholder key looks like in this source: "BIOS and MDM fillers such as ...". */
	fillers: string;
	/** What an updated record's output shows: "each field". */
	changes: string;
}

/** Dry Run, Apply Only Plan and As an AI Tool: how a run may write. */
export const runProperties = (): INodeProperties[] => [
	{
		displayName: 'Dry Run',
		name: 'dryRun',
		type: 'boolean',
		default: false,
		description:
			'Whether to only show what would change (the same output, with its plan ID), writing nothing; the guard does not stop a dry run, which says when the real run would be refused',
	},
	{
		displayName: 'Apply Only Plan',
		name: 'applyOnlyPlan',
		type: 'string',
		default: '',
		placeholder: "e.g. {{ $('Sync (dry run)').first().json.planId }}",
		description:
			'The plan ID of the dry run a person approved: the run writes only if its plan is exactly that one, and otherwise writes nothing and says what changed. Empty: apply the plan as it is.',
		displayOptions: { show: { dryRun: [false] } },
	},
	{
		displayName: 'As an AI Tool',
		name: 'toolMode',
		type: 'options',
		options: [
			{
				name: 'Propose Only',
				value: 'propose',
				description: 'Every call is a dry run: the agent gets the plan and its plan ID',
			},
			{
				name: 'Apply an Approved Plan',
				value: 'apply',
				description:
					'A call with a plan ID in Apply Only Plan writes that plan if it is still the plan; a call without one is a dry run',
			},
		],
		default: 'propose',
		description:
			'What an AI agent may do with this node as a tool (no effect in a workflow). The guard holds either way.',
	},
];

/** The options every Sync has: empty source, absent fields, placeholder keys and the output. */
/** The Output option of Sync and of Apply Sync Plan: an item per record, a summary or a report. */
export const outputOption = (
	eachRecord: string,
	defaultOutput: 'records' | 'report',
): INodeProperties => ({
	displayName: 'Output',
	name: 'output',
	type: 'options',
	options: [
		{ name: 'One Item per Record', value: 'records', description: eachRecord },
		{
			name: 'Summary',
			value: 'summary',
			description: 'One item counting each action; failed rows as error items',
		},
		{
			name: 'Report',
			value: 'report',
			description:
				'One item with the counts and the changes as Markdown and HTML, with a subject line, for a message, an e-mail or an approval; failed rows as error items',
		},
	],
	default: defaultOutput,
});

export const sourceOptions = ({ noun, nouns, fillers, changes }: FormWords): INodeProperties[] => [
	{
		displayName: 'Allow Empty Source',
		name: 'allowEmptySource',
		type: 'boolean',
		default: false,
		description: `Whether an input with no item may handle every ${noun} in scope as missing. Off, such a run is refused (a source that returned nothing is usually a failed export).`,
	},
	{
		displayName: 'Field Missing From an Item',
		name: 'absentFields',
		type: 'options',
		options: [
			{
				name: 'Leave As Is',
				value: 'keep',
				description: `The ${noun}'s value stays (an explicit null or empty value clears)`,
			},
			{ name: 'Clear', value: 'clear', description: `The ${noun}'s value is cleared` },
		],
		default: 'keep',
		description:
			'What a synced field means when an item does not have it at all (a field that no item has stops the run)',
	},
	{
		displayName: 'Placeholder Keys',
		name: 'placeholderKeys',
		type: 'string',
		typeOptions: { rows: 4 },
		default: DEFAULT_PLACEHOLDER_KEYS,
		description: `Key values that mean "no key" (${fillers}), one per line, case aside; /.../ is a regular expression. A row with one is refused and its ${noun} kept.`,
	},
	outputOption(
		`Each ${noun} with its action and, for changes, ${changes} before and after`,
		'records',
	),
	{
		displayName: 'Include Plan for Approval',
		name: 'carryPlan',
		type: 'boolean',
		default: true,
		description:
			"Whether a dry run's Summary or Report carries its plan (plan: every write, with each record as the dry run read it), for Apply Sync Plan to write exactly that plan once a person approves it. Turn it off for very large plans (a first import) that nobody approves.",
	},
	{
		displayName: 'Report Lines per Action',
		name: 'reportLimit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 20,
		description: `With Output: Report, how many ${nouns} each action lists (the counts are always whole)`,
	},
];
