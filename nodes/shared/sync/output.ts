import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { hasValue } from '../schema/values';
import { ACTIONS, PLANNED, type Action, type PlanEntry } from './entries';
import { rowName, type Refusal } from './guard';

/** What a record is called in output and reports: its name and who holds it, when known. */
export interface RecordWords {
	/** "asset", "assets". */
	noun: string;
	nouns: string;
	/** The key field's API name. */
	keyField: string;
	/** A field's name in a report: "Device Name". */
	fieldLabel: (field: string) => string;
	/** The record's (or new record's) name and holder, e.g. a device's name and assignee. */
	describe: (record: IDataObject) => { name?: string; holder?: string };
	/** Fields a report leads with beside keys: a status, who holds the record. */
	prominent?: (field: string) => boolean;
	/** Fields that change on most records every night (a last check-in): counted, not listed. */
	routine?: (field: string) => boolean;
}

/** How a run went, for its output: the plan's id, and for a dry run what would refuse the real run. */
export interface RunFacts {
	planId: string;
	dryRun: boolean;
	refusals: readonly Refusal[];
	scope: number;
	source: number;
	/** The input items the summary and report pair with, when not the source's rows. */
	inputs?: number;
}

type Written = Exclude<PlanEntry, { action: 'failed' }>;

const recordOf = (entry: Written) => (entry.action === 'created' ? entry.body : entry.record);

/** The action as the output says it: past tense for a run, what would happen for a dry run. */
const actionWord = (action: Action, dryRun: boolean) => (dryRun ? PLANNED[action] : action);

const refusedBy = (facts: RunFacts) =>
	facts.dryRun && facts.refusals.length
		? {
				wouldBeRefused: facts.refusals.map((refusal) => refusal.message).join('; '),
				wouldBeRefusedBy: facts.refusals[0].kind,
			}
		: {};

/** One output item per record: its action, key, id, name and holder, and each field's change. */
export function recordItem(
	entry: Written,
	words: RecordWords,
	facts: RunFacts,
): INodeExecutionData {
	const record = recordOf(entry);
	const { name, holder } = words.describe(record);
	const json: IDataObject = {
		action: actionWord(entry.action, facts.dryRun),
		...(record.id === undefined ? {} : { id: record.id as string }),
		[words.keyField]: (entry.key ?? record[words.keyField] ?? null) as string,
		...(name === undefined ? {} : { name }),
		...(holder === undefined ? {} : { holder }),
		changes: ('changes' in entry ? entry.changes : {}) as IDataObject,
	};
	if ('reason' in entry && entry.reason) json.reason = entry.reason;
	Object.assign(json, { planId: facts.planId, dryRun: facts.dryRun, ...refusedBy(facts) });
	const items = 'items' in entry && entry.items ? entry.items : [];
	const pairedItem =
		items.length > 1 ? items.map((item) => ({ item })) : { item: 'item' in entry ? entry.item : 0 };
	return { json, pairedItem };
}

/** The count of each action. */
export function countActions(entries: readonly PlanEntry[]): Record<Action, number> {
	const counts = Object.fromEntries(ACTIONS.map((action) => [action, 0])) as Record<Action, number>;
	for (const entry of entries) counts[entry.action]++;
	return counts;
}

/** How many records the plan empties a field on (the clears a person may want to see first). */
export function countCleared(entries: readonly PlanEntry[]): number {
	return entries.filter(
		(entry) => (entry.action === 'updated' || entry.action === 'restored') && entry.cleared?.length,
	).length;
}

/** Records back in the source whose status stays the Missing Records status. */
const returningLeft = (entries: readonly PlanEntry[]) =>
	entries.filter((entry) => 'returning' in entry && entry.returning);

/** Pairs an item made from the whole input with every input item. */
const pairedWithAll = (source: number) =>
	source ? Array.from({ length: source }, (_, item) => ({ item })) : { item: 0 };

/** The run's figures, which the summary and the report both carry. */
const runFigures = (
	entries: readonly PlanEntry[],
	facts: RunFacts,
	counts = countActions(entries),
) => ({
	...counts,
	cleared: countCleared(entries),
	returnedNotRestored: returningLeft(entries).length,
	scope: facts.scope,
	source: facts.source,
	planId: facts.planId,
	dryRun: facts.dryRun,
	...refusedBy(facts),
});

/** One item counting each action (failed rows come as their own error items beside it). */
export function summaryItem(entries: readonly PlanEntry[], facts: RunFacts): INodeExecutionData {
	return {
		json: runFigures(entries, facts),
		pairedItem: pairedWithAll(facts.inputs ?? facts.source),
	};
}

const escapeHtml = (text: string) =>
	text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A value as a report shows it: text in quotes, "(empty)" for none, objects as JSON. */
function shown(value: unknown): string {
	if (!hasValue(value)) return '(empty)';
	const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
	return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One report line's parts: who, and what changes. */
function lineOf(entry: PlanEntry, words: RecordWords): { who: string; what: string } {
	if (entry.action === 'failed') return { who: rowName(entry), what: entry.error.message };
	const record = recordOf(entry);
	const { name, holder } = words.describe(record);
	const key = entry.key ?? (record[words.keyField] as string | undefined);
	const who = [
		name ?? key ?? String(record.id),
		name && key ? `(${key})` : '',
		holder ? `· ${holder}` : '',
	]
		.filter(Boolean)
		.join(' ');
	const changes = 'changes' in entry ? entry.changes : {};
	// keys first, then a status or holder, routine fields last
	const rank = (field: string) =>
		field === words.keyField || field === 'externalId'
			? 0
			: words.prominent?.(field)
				? 1
				: words.routine?.(field)
					? 3
					: 2;
	const what = Object.entries(changes)
		.sort(([a], [b]) => rank(a) - rank(b))
		.map(([field, { before, after }]) =>
			entry.action === 'created'
				? `${words.fieldLabel(field)} ${shown(after)}`
				: `${words.fieldLabel(field)} ${shown(before)} → ${shown(after)}`,
		)
		.join('; ');
	const reason = 'reason' in entry && entry.reason ? entry.reason : '';
	return { who, what: [what, reason].filter(Boolean).join('; ') };
}

/** Section titles: what a dry run would do, what a run did. */
const TITLES: Record<Action, [planned: string, done: string]> = {
	created: ['Would create', 'Created'],
	updated: ['Would update', 'Updated'],
	restored: ['Would restore (back in the source)', 'Restored (back in the source)'],
	retired: ['Would retire', 'Retired'],
	deleted: ['Would delete', 'Deleted'],
	missing: ['Missing, kept as they are', 'Missing, kept as they are'],
	unchanged: ['Unchanged', 'Unchanged'],
	failed: ['Rows refused or failed', 'Rows refused or failed'],
};

type Updated = Extract<PlanEntry, { action: 'updated' }>;

/**
 * Updates as a report orders them: those that change a key (a corrected serial), those that
 * change a status or who holds the record, the others, and those that change routine fields only
 * (a last check-in), which are counted rather than listed.
 */
function sortUpdates(updates: readonly PlanEntry[], words: RecordWords) {
	const sorted = {
		keyChanges: [] as Updated[],
		people: [] as Updated[],
		others: [] as Updated[],
		routine: [] as Updated[],
	};
	for (const entry of updates as Updated[]) {
		const fields = Object.keys(entry.changes);
		if (fields.some((field) => field === words.keyField || field === 'externalId'))
			sorted.keyChanges.push(entry);
		else if (fields.some((field) => words.prominent?.(field))) sorted.people.push(entry);
		else if (fields.every((field) => words.routine?.(field))) sorted.routine.push(entry);
		else sorted.others.push(entry);
	}
	return sorted;
}

/**
 * The plan as one item people read: counts and the changes, leading with what a person must see
 * (removals, restorations and key changes listed whole; changes of status and holder; failed
 * rows), then the other changes (the first `limit` of each), routine-only updates counted, each
 * field before → after; as Markdown (which Slack also renders: lists and single-asterisk
 * emphasis, no tables) and as HTML (e-mail, a form's page), with a subject line.
 */
export function reportItem(
	entries: readonly PlanEntry[],
	words: RecordWords,
	facts: RunFacts,
	limit: number,
): INodeExecutionData {
	const counts = countActions(entries);
	const title = (action: Action) => TITLES[action][facts.dryRun ? 0 : 1];
	const headline = (['created', 'updated', 'restored', 'retired', 'deleted'] as Action[])
		.filter((action) => counts[action])
		.map((action) => `${title(action).toLowerCase()} ${counts[action]}`)
		.join(', ');
	const subject = `Sync ${facts.dryRun ? 'plan' : 'done'}: ${headline || 'nothing to write'}${counts.failed ? `, ${counts.failed} rows failed` : ''}`;
	const status = facts.dryRun
		? facts.refusals.length
			? `Dry run: nothing was written. The real run would be refused: ${facts.refusals.map((refusal) => refusal.message).join('; ')}.`
			: 'Dry run: nothing was written.'
		: 'Written: every change below was confirmed by the service.';
	// removals, restorations and key changes are listed whole: a person approves each of them
	const section = (heading: string, listed: readonly PlanEntry[], whole = false) => {
		const shown = whole ? listed : listed.slice(0, limit);
		return {
			heading: `${heading} (${listed.length})`,
			lines: shown.map((entry) => lineOf(entry, words)),
			more: listed.length - shown.length,
		};
	};
	const of = (action: Action) => entries.filter((entry) => entry.action === action);
	const { keyChanges, people, others, routine } = sortUpdates(of('updated'), words);
	const sections = [
		...(['retired', 'deleted', 'restored'] as Action[]).map((action) =>
			section(title(action), of(action), true),
		),
		section('Back in the source, status left as it is', returningLeft(entries)),
		section(facts.dryRun ? 'Would change a key' : 'Key changed', keyChanges, true),
		section(
			facts.dryRun ? 'Would change a status or who holds it' : 'Status or holder changed',
			people,
		),
		section(title('failed'), of('failed')),
		section(title('updated'), others),
		section(title('created'), of('created')),
		section(title('missing'), of('missing')),
	].filter(({ heading }) => !heading.endsWith(' (0)'));
	// routine fields (a device's last check-in) change on most records every night: counted
	if (routine.length) {
		const fields = [...new Set(routine.flatMap((entry) => Object.keys(entry.changes)))]
			.map((field) => words.fieldLabel(field))
			.join(', ');
		sections.push({
			heading: `${facts.dryRun ? 'Would update' : 'Updated'} ${fields} only (${routine.length})`,
			lines: [
				{ who: `${routine.length} ${routine.length === 1 ? words.noun : words.nouns}`, what: '' },
			],
			more: 0,
		});
	}
	const countLine = ACTIONS.filter((action) => counts[action])
		.map((action) => `${title(action)}: ${counts[action]}`)
		.join(' · ');
	const markdown = [
		`*${subject}*`,
		status,
		`Scope: ${facts.scope} ${words.nouns} · source: ${facts.source} rows · ${countLine || 'no records'}`,
		`Plan id: \`${facts.planId}\``,
		...sections.flatMap(({ heading, lines, more }) => [
			'',
			`*${heading}*`,
			...lines.map(({ who, what }) => `- ${who}${what ? `: ${what}` : ''}`),
			...(more > 0 ? [`- … and ${more} more`] : []),
		]),
	].join('\n');
	const html = [
		`<h2>${escapeHtml(subject)}</h2>`,
		`<p>${escapeHtml(status)}</p>`,
		`<p>Scope: ${facts.scope} ${escapeHtml(words.nouns)} · source: ${facts.source} rows · ${escapeHtml(countLine || 'no records')}<br>Plan id: <code>${escapeHtml(facts.planId)}</code></p>`,
		...sections.flatMap(({ heading, lines, more }) => [
			`<h3>${escapeHtml(heading)}</h3>`,
			'<ul>',
			...lines.map(
				({ who, what }) =>
					`<li><b>${escapeHtml(who)}</b>${what ? `: ${escapeHtml(what)}` : ''}</li>`,
			),
			...(more > 0 ? [`<li>… and ${more} more</li>`] : []),
			'</ul>',
		]),
	].join('\n');
	return {
		json: {
			subject,
			markdown,
			html,
			...runFigures(entries, facts, counts),
		},
		pairedItem: pairedWithAll(facts.inputs ?? facts.source),
	};
}
