import type { IDataObject } from 'n8n-workflow';

/**
 * One poll of a trigger at a time, each from the newest state. Two ways n8n can start a poll that
 * would read the same window from an older state and emit it again:
 *
 * - it starts a poll while the previous one still runs (a slow service; several Poll Times that
 *   fall on one instant);
 * - with durable poller cursors (n8n 2.36+, its durable scheduler), a poll's task reads the state
 *   when it begins, and the previous poll's state is committed with its execution only after that
 *   poll returned. A task that began while the previous poll ran, or before its commit landed, is
 *   handed the older state.
 *
 * So each state carries a mark: which chain of states it belongs to and how many polls made it. A
 * poll given a state older than the one this process last handed back emits nothing and leaves
 * the state alone, until n8n has had time to commit the newer one: after `SETTLE_MS` the newer
 * state can no longer be committed (its task's lease has run out, so what that poll emitted never
 * started), and the older state is read again, so nothing is lost either.
 *
 * The marks live in this process: a restart begins with none and trusts what n8n stored.
 */
export const SETTLE_MS = 60_000;

/** Kept in the trigger's static data beside its state. */
export interface StateMark {
	/** Names one chain of states: a state begun afresh starts a new chain. */
	chain: string;
	/** Successful polls in this chain. */
	polls: number;
}

const MARK_KEY = 'mark';

const markOf = (staticData: IDataObject): StateMark | undefined => {
	const mark = staticData[MARK_KEY] as StateMark | undefined;
	return typeof mark?.chain === 'string' && typeof mark.polls === 'number' ? mark : undefined;
};

const newChain = (): string =>
	`${Date.now().toString(36)}-${Math.floor(Math.random() * 2 ** 32).toString(36)}`;

export class PollTurns {
	/**
	 * Triggers with a poll running now, held until it ends however long that takes: every request
	 * and retry wait of a poll ends within its turn (see the trigger's deadline), so it does end.
	 */
	private readonly running = new Set<string>();
	/** The mark of the state each trigger's last poll handed back, and until when it may still land. */
	private readonly handedBack = new Map<string, StateMark & { landsBy: number }>();

	/** Whether a poll of the trigger `key`, given this state, may run now (until `finish`). */
	begin(key: string, staticData: IDataObject): boolean {
		if (this.running.has(key)) return false;
		const now = Date.now();
		const last = this.handedBack.get(key);
		if (last && last.landsBy <= now) this.handedBack.delete(key);
		else if (last) {
			// a state without a mark is n8n's first: with durable cursors, n8n stores nothing of the
			// poll it runs at activation, so the first scheduled poll is handed the empty state
			const mark = markOf(staticData);
			if (mark?.chain === last.chain && mark.polls < last.polls) return false;
		}
		this.running.add(key);
		return true;
	}

	/**
	 * The poll ends; when it `changed` the state (in `staticData`), that state is the newest. A
	 * poll that failed or changed nothing leaves the state, its mark included, as it was.
	 */
	finish(key: string, staticData: IDataObject, changed: boolean): void {
		this.running.delete(key);
		if (!changed) return;
		const mark = markOf(staticData);
		const next: StateMark = { chain: mark?.chain ?? newChain(), polls: (mark?.polls ?? 0) + 1 };
		staticData[MARK_KEY] = next as unknown as IDataObject;
		this.handedBack.set(key, { ...next, landsBy: Date.now() + SETTLE_MS });
	}
}
