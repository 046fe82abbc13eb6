import type { IDataObject } from 'n8n-workflow';
import { PollTurns, SETTLE_MS } from '../../../nodes/StockroomTrigger/pollTurns';

describe('PollTurns: one poll of a trigger at a time, each from the newest state', () => {
	let clock: number;
	beforeEach(() => {
		clock = Date.parse('2026-11-25T10:00:00Z');
		jest.spyOn(Date, 'now').mockImplementation(() => clock);
	});
	afterEach(() => jest.restoreAllMocks());

	const copy = (state: IDataObject): IDataObject => structuredClone(state);

	/** Runs one successful poll of `key` from `state`, which it changes as n8n's would. */
	function pollOnce(turns: PollTurns, key: string, state: IDataObject): boolean {
		if (!turns.begin(key, state)) return false;
		turns.finish(key, state, true);
		return true;
	}

	test('a second poll while the first runs is refused, until the first ends, however long it runs', () => {
		const turns = new PollTurns();
		const state: IDataObject = {};
		expect(turns.begin('w:n', state)).toBe(true);
		expect(turns.begin('w:n', copy(state))).toBe(false);
		// another trigger is not held up
		expect(turns.begin('w:other', {})).toBe(true);
		clock += 60 * 60_000;
		expect(turns.begin('w:n', copy(state))).toBe(false);
		turns.finish('w:n', state, true);
		expect(turns.begin('w:n', copy(state))).toBe(true);
	});

	test('a failed poll leaves the state unmarked and holds nothing up', () => {
		const turns = new PollTurns();
		const state: IDataObject = {};
		expect(turns.begin('w:n', state)).toBe(true);
		turns.finish('w:n', state, false);
		expect(state).toEqual({});
		expect(turns.begin('w:n', state)).toBe(true);
	});

	test('each successful poll counts in the state it hands back', () => {
		const turns = new PollTurns();
		const state: IDataObject = {};
		pollOnce(turns, 'w:n', state);
		const { chain } = state.mark as { chain: string };
		expect(state.mark).toEqual({ chain, polls: 1 });
		pollOnce(turns, 'w:n', state);
		expect(state.mark).toEqual({ chain, polls: 2 });
	});

	test('a state older than the one last handed back is refused for a minute, then read again', () => {
		const turns = new PollTurns();
		const state: IDataObject = {};
		pollOnce(turns, 'w:n', state);
		const older = copy(state);
		pollOnce(turns, 'w:n', state);

		expect(turns.begin('w:n', copy(older))).toBe(false);
		// the newest state goes on at once
		expect(turns.begin('w:n', copy(state))).toBe(true);
		turns.finish('w:n', copy(state), false);

		clock += SETTLE_MS - 1;
		expect(turns.begin('w:n', copy(older))).toBe(false);
		clock += 1;
		expect(turns.begin('w:n', copy(older))).toBe(true);
	});

	test('a state without a mark (n8n stored nothing yet) goes on: with durable cursors, the poll n8n runs at activation is not stored', () => {
		const turns = new PollTurns();
		const atActivation: IDataObject = {};
		pollOnce(turns, 'w:n', atActivation);
		expect(turns.begin('w:n', {})).toBe(true);
	});

	test('a state of another chain (begun afresh) is not compared', () => {
		const turns = new PollTurns();
		const first: IDataObject = {};
		for (let i = 0; i < 3; i++) pollOnce(turns, 'w:n', first);
		clock += 1;
		const other = new PollTurns();
		const afresh: IDataObject = {};
		pollOnce(other, 'w:n', afresh);
		expect((afresh.mark as { chain: string }).chain).not.toEqual(
			(first.mark as { chain: string }).chain,
		);
		expect(turns.begin('w:n', afresh)).toBe(true);
	});
});
