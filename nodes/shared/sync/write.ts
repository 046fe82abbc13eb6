import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import { runPooled, WRITES_AT_ONCE } from '../pool';
import type { PlanEntry } from './entries';

/** How a resource writes plan entries. */
export interface EntryWriter {
	/** Whether the entry needs a write (unchanged and missing records cost nothing). */
	writes(entry: PlanEntry): boolean;
	/** Writes the entry; gives the service's record (for a created one, its id). */
	write(entry: PlanEntry, item: number | undefined): Promise<IDataObject | undefined>;
}

/** From this many writes on, a run notes its progress in n8n's log (each tenth of the writes). */
const PROGRESS_FROM = 1000;

/**
 * Carries the plan out: one write per changed record, 8 at a time through the shared pool. A
 * write that fails is a failed entry with Continue On Fail; otherwise no further write starts and
 * the run fails saying what was written before. A long run (a first import) logs its progress.
 */
export async function writeEntries(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	writer: EntryWriter,
	{ continueOnFail }: { continueOnFail: boolean },
): Promise<PlanEntry[]> {
	const done = [...plan];
	const pending = plan.flatMap((entry, index) => (writer.writes(entry) ? [index] : []));
	let written = 0;
	let fatal: Error | undefined;
	const step = pending.length >= PROGRESS_FROM ? Math.ceil(pending.length / 10) : Infinity;
	const node = context.getNode().name;
	await runPooled(
		pending.length,
		WRITES_AT_ONCE,
		async (next) => {
			const index = pending[next];
			const entry = plan[index];
			const item = 'item' in entry ? entry.item : undefined;
			try {
				const answer = await writer.write(entry, item);
				if (entry.action === 'created')
					done[index] = { ...entry, body: { ...entry.body, id: answer?.id } };
				written++;
				if (written % step === 0 || (written === pending.length && step !== Infinity)) {
					context.logger.info(
						`Stockroom Sync "${node}": ${written.toLocaleString('en')} of ${pending.length.toLocaleString('en')} writes confirmed by the service`,
					);
				}
			} catch (error) {
				if (!continueOnFail) {
					fatal ??= error as Error;
					return;
				}
				done[index] = {
					action: 'failed',
					item,
					key: entry.key,
					record: 'record' in entry ? entry.record : undefined,
					error: error as Error,
				};
			}
		},
		() => fatal !== undefined,
	);
	if (fatal) {
		const stopped =
			fatal instanceof NodeOperationError
				? fatal
				: new NodeOperationError(context.getNode(), fatal);
		stopped.description = [
			(fatal as { description?: string }).description,
			`Sync stopped after ${written} of ${pending.length} writes (the service confirmed them); run it again to finish: it picks up where this run stopped.`,
		]
			.filter(Boolean)
			.join('\n');
		throw stopped;
	}
	return done;
}
