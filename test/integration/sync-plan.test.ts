import type { IDataObject } from 'n8n-workflow';
import { assetSyncSuite } from '../helpers/assetSync';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 33: a sync a person can approve. The plan id of a dry run is the plan id of the run
 * that carries it out; Apply Only Plan writes nothing when the plan changed in between; the
 * report is a message people read. Expectations are written by hand from the issue.
 */

/** Four assets of this source (scope: External ID starts with PLAN-), each assigned to someone. */
const seeded = [1, 2, 3, 4].map((n) => ({
	externalId: `PLAN-${n}`,
	deviceName: `Laptop ${n}`,
	status: 'Deployed',
	hardwareVendor: 'Lenovo',
	serialNumber: `PF-${n}`,
	assignedToEmail: `person${n}@northwind.example`,
}));
const row = (n: number, changes: IDataObject = {}): IDataObject => {
	const { assignedToEmail: _notOwned, ...owned } = seeded[n - 1];
	return { ...owned, ...changes };
};

describe('Sync: the plan reviewed is the plan applied (issue 33)', () => {
	const suite = assetSyncSuite(seeded, {
		// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
		maxFailedPercent: 100,
		fieldsToSync: ['deviceName', 'hardwareVendor', 'serialNumber'],
		createOnlyFields: ['status'],
		filterMode: 'expression',
		filterExpression: 'externalId sw "PLAN-"',
		missingRecords: 'setStatus',
		maxRemovalPercent: 50,
	});
	const { sync, writes } = suite;
	const stored = (externalId: string) => suite.stored(externalId)!;
	/** Tonight's export: Laptop 2 renamed, a new device, PLAN-4 gone. */
	const tonight = () => [
		row(1),
		row(2, { deviceName: 'Laptop 2 (new board)' }),
		row(3),
		{ ...row(1), externalId: 'PLAN-5', serialNumber: 'PF-5', deviceName: 'Laptop 5' },
	];

	test('the same inputs give the same plan id, in any order; a dry run and its run share it', async () => {
		const [first] = await sync(tonight(), { dryRun: true });
		const [again] = await sync([...tonight()].reverse(), { dryRun: true });
		const id = first[0].json.planId as string;
		expect(id).toMatch(
			/^p2-c1-u1-s0-r1-d0-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}$/,
		);
		expect(again.every((item) => item.json.planId === id)).toBe(true);
		expect(writes()).toEqual([]);
		const [applied] = await sync(tonight(), { applyOnlyPlan: id });
		expect(applied.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['PLAN-1', 'unchanged'],
			['PLAN-2', 'updated'],
			['PLAN-3', 'unchanged'],
			['PLAN-5', 'created'],
			['PLAN-4', 'retired'],
		]);
		expect(applied.every((item) => item.json.planId === id)).toBe(true);
		expect(
			writes()
				.map((call) => call.method)
				.sort(),
		).toEqual(['PATCH', 'PATCH', 'PUT']);
	});

	test('the register changed between the approval and the apply: refused, nothing written, naming the record edited and who edited it', async () => {
		const [planned] = await sync(tonight(), { dryRun: true });
		const approved = planned[0].json.planId as string;
		// someone renames PLAN-2 at the service desk after the approval: the same counts, another change
		await suite.person.editAsset('PLAN-2', { deviceName: 'Renamed by hand' });
		const editedAt = stored('PLAN-2').lastModifiedDtm as string;
		suite.sandbox.resetStats();
		const error = await failureOf(sync(tonight(), { applyOnlyPlan: approved }));
		expect(error.message).toBe(
			'Sync refused: the plan is not the one approved: the asset PLAN-2 was edited since the dry run',
		);
		const lines = error.description!.split('\n');
		expect(lines).toEqual([
			'Nothing was written.',
			`Edited since the dry run: PLAN-2 ("Renamed by hand" · person2@northwind.example), modified ${editedAt} by service-desk (API client): the plan now would update it.`,
			'Approved: create 1, update 1, restore 0, retire 1, delete 0, missing 0, failed 0. Now: create 1, update 1, restore 0, retire 1, delete 0, missing 0, failed 0.',
			'The plan now would: update PLAN-2 (Renamed by hand); create PLAN-5 (Laptop 5); retire PLAN-4 (Laptop 4).',
			expect.stringMatching(
				/^Approved plan ID: p2-\S+; now: p2-c1-u1-s0-r1-d0-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}\.$/,
			),
			'Run the dry run again and approve its plan.',
		]);
		expect(lines[4]).toContain(`Approved plan ID: ${approved}; `);
		expect(error.description).not.toContain(`now: ${approved}`);
		expect(writes()).toEqual([]);
	});

	test('a record the plan removes was edited after the dry run: the approval does not cover it (issue 38)', async () => {
		const [planned] = await sync(tonight(), { dryRun: true });
		const approved = planned[0].json.planId as string;
		// the person approved "retire Laptop 4"; meanwhile the device is re-issued to Bob
		await suite.person.editAsset('PLAN-4', {
			deviceName: 'Bob Laptop (re-issued)',
			assignedToEmail: 'bob@example.com',
			notes: 'DO NOT RETIRE',
		});
		suite.sandbox.resetStats();
		const error = await failureOf(sync(tonight(), { applyOnlyPlan: approved }));
		expect(error.message).toBe(
			'Sync refused: the plan is not the one approved: the asset PLAN-4 was edited since the dry run',
		);
		expect(error.description).toContain(
			'Edited since the dry run: PLAN-4 ("Bob Laptop (re-issued)" · bob@example.com), modified ',
		);
		expect(error.description).toContain(
			'by service-desk (API client): the plan now would retire it.',
		);
		expect(writes()).toEqual([]);
		expect(stored('PLAN-4').status).toBe('Deployed');
		// an edit of a record the plan does not touch leaves the plan as approved
		const [again] = await sync(tonight(), { dryRun: true });
		await suite.person.editAsset('PLAN-1', { notes: 'new charger' });
		const [applied] = await sync(tonight(), { applyOnlyPlan: again[0].json.planId });
		expect(applied.map((item) => item.json.action)).toContain('retired');
	});

	test('the node applying the plan is set up otherwise than the dry run: the refusal says so, not that the register changed', async () => {
		const [planned] = await sync(tonight(), { dryRun: true });
		const approved = planned[0].json.planId as string;
		const error = await failureOf(
			sync(tonight(), { applyOnlyPlan: approved, fieldsToSync: ['deviceName'] }),
		);
		expect(error.message).toBe(
			"Sync refused: the plan is not the one approved: the node's settings differ from the dry run's",
		);
		expect(error.description).not.toMatch(/register|input/);
		// the guard's limits and the output are no part of the plan
		const [applied] = await sync(tonight(), {
			applyOnlyPlan: approved,
			maxRemovalPercent: 30,
			options: { output: 'summary' },
		});
		expect(applied[0].json).toMatchObject({ updated: 1, created: 1, retired: 1, planId: approved });
	});

	test('the same export in another order with refused rows: the same plan id (issue 38)', async () => {
		const bad = (n: number) => ({
			...row(1),
			externalId: `PLAN-${n}`,
			serialNumber: `PF-${n}`,
			status: 'Lost',
		});
		const input = [...tonight(), bad(6), bad(7)];
		const [planned] = await sync(input, { dryRun: true }, { continueOnFail: true });
		const [reordered] = await sync(
			[bad(7), ...[...tonight()].reverse(), bad(6)],
			{ dryRun: true },
			{ continueOnFail: true },
		);
		const idOf = (items: typeof planned) => items.find((item) => item.json.planId)!.json.planId;
		expect(idOf(reordered)).toBe(idOf(planned));
		expect(String(idOf(planned))).toMatch(/-f2-/);
		// another refused row is another plan
		const [other] = await sync(
			[...tonight(), bad(6), bad(8)],
			{ dryRun: true },
			{ continueOnFail: true },
		);
		expect(String(idOf(other)).replace(/-t.*$/, '')).not.toBe(
			String(idOf(planned)).replace(/-t.*$/, ''),
		);
	});

	test('the export changed between the approval and the apply: refused, the counts say how', async () => {
		const [planned] = await sync(tonight(), { dryRun: true });
		const approved = planned[0].json.planId as string;
		// the export lost PLAN-3 since: one more to retire
		const shrunk = tonight().filter((item) => item.externalId !== 'PLAN-3');
		const error = await failureOf(sync(shrunk, { applyOnlyPlan: approved }));
		expect(error.message).toBe(
			"Sync refused: the plan is not the one approved: the input differs from the dry run's",
		);
		expect(error.description).toContain(
			'Approved: create 1, update 1, restore 0, retire 1, delete 0, missing 0, failed 0. Now: create 1, update 1, restore 0, retire 2, delete 0, missing 0, failed 0.',
		);
		// the first records of the action whose count moved
		expect(error.description).toContain(
			'The plan now would: retire PLAN-3 (Laptop 3); retire PLAN-4 (Laptop 4).',
		);
		expect(writes()).toEqual([]);
		// with On Error: Continue it is one error item saying so, paired with the first item; it
		// says which refusal it is (refused), and carries the error so that n8n sends it to the
		// error output with that field
		const [items] = await sync(shrunk, { applyOnlyPlan: approved }, { continueOnFail: true });
		expect(items).toEqual([
			{
				json: {
					error: expect.stringMatching(/^Sync refused: the plan is not the one approved/),
					message: expect.stringMatching(/^Nothing was written\./),
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(writes()).toEqual([]);
	});

	test('a text that is no plan id is refused as such', async () => {
		const error = await failureOf(sync(tonight(), { applyOnlyPlan: 'approved by Anna' }));
		expect(error.description).toContain(
			'"approved by Anna" is not a plan ID (a dry run\'s output carries one in planId).',
		);
		expect(writes()).toEqual([]);
	});

	test('every item names what it touches: the device and who holds it; a dry run says what would happen', async () => {
		const [items] = await sync(tonight(), { dryRun: true });
		expect(items.map(({ json }) => [json.action, json.externalId, json.name, json.holder])).toEqual(
			[
				['unchanged', 'PLAN-1', 'Laptop 1', 'person1@northwind.example'],
				['update', 'PLAN-2', 'Laptop 2', 'person2@northwind.example'],
				['unchanged', 'PLAN-3', 'Laptop 3', 'person3@northwind.example'],
				['create', 'PLAN-5', 'Laptop 5', undefined],
				['retire', 'PLAN-4', 'Laptop 4', 'person4@northwind.example'],
			],
		);
		expect(items[0].json.changes).toEqual({});
		expect(items[4].json.changes).toEqual({ status: { before: 'Deployed', after: 'Retired' } });
	});

	test('Output Report: one item with a subject, the counts and the changes as Markdown and HTML', async () => {
		const [[report]] = await sync(tonight(), { dryRun: true, options: { output: 'report' } });
		const id = report.json.planId as string;
		expect(report.json).toMatchObject({
			subject: 'Sync plan: would create 1, would update 1, would retire 1',
			created: 1,
			updated: 1,
			retired: 1,
			deleted: 0,
			missing: 0,
			unchanged: 2,
			failed: 0,
			cleared: 0,
			scope: 4,
			source: 4,
			dryRun: true,
		});
		expect(report.json.markdown).toBe(
			[
				'*Sync plan: would create 1, would update 1, would retire 1*',
				'Dry run: nothing was written.',
				'Scope: 4 assets · source: 4 rows · Would create: 1 · Would update: 1 · Would retire: 1 · Unchanged: 2',
				`Plan id: \`${id}\``,
				'',
				'*Would retire (1)*',
				'- Laptop 4 (PLAN-4) · person4@northwind.example: Status "Deployed" → "Retired"',
				'',
				'*Would update (1)*',
				'- Laptop 2 (PLAN-2) · person2@northwind.example: Device Name "Laptop 2" → "Laptop 2 (new board)"',
				'',
				'*Would create (1)*',
				'- Laptop 5 (PLAN-5): External ID "PLAN-5"; Status "Deployed"; Device Name "Laptop 5"; Hardware Vendor "Lenovo"; Serial Number "PF-5"',
			].join('\n'),
		);
		expect(report.json.html).toContain('<h3>Would retire (1)</h3>');
		expect(report.json.html).toContain(
			'<li><b>Laptop 4 (PLAN-4) · person4@northwind.example</b>: Status &quot;Deployed&quot; → &quot;Retired&quot;</li>',
		);
		expect(report.pairedItem).toEqual([0, 1, 2, 3].map((item) => ({ item })));
	});

	test('the report lists the first N of each action and says how many more; failed rows stay reachable as error items', async () => {
		const input = [
			...tonight(),
			{ ...row(1), externalId: 'PLAN-6', serialNumber: 'PF-6', status: 'Lost' },
			{ ...row(1), externalId: 'PLAN-7', serialNumber: 'PF-7', deviceName: 'Laptop 7' },
		];
		const [items] = await sync(
			input,
			{ dryRun: true, options: { output: 'report', reportLimit: 1 } },
			{ continueOnFail: true },
		);
		const [report, ...failed] = items;
		expect(report.json.markdown).toContain('*Would create (2)*\n- Laptop 5 (PLAN-5)');
		expect(report.json.markdown).toContain('- … and 1 more');
		expect(report.json.markdown).toContain(
			'*Rows refused or failed (1)*\n- Laptop 1 (PLAN-6), item 4: Invalid source row: Status (status)',
		);
		// the row as people know it, beside its position
		expect(failed).toEqual([
			{
				json: {
					error: expect.stringMatching(/^Invalid source row: Status \(status\) .*\[item 4\]$/),
					message: expect.stringMatching(/^Row PLAN-6 \(Laptop 1\)\n/),
				},
				pairedItem: { item: 4 },
			},
		]);
		// Summary keeps them too
		const [summary] = await sync(
			input,
			{ dryRun: true, options: { output: 'summary' } },
			{
				continueOnFail: true,
			},
		);
		expect(summary.map((item) => Object.keys(item.json).includes('error'))).toEqual([false, true]);
	});

	test('an export that came back empty (one empty item, Always Output Data) is an empty input', async () => {
		const error = await failureOf(sync([{}]));
		expect(error.message).toBe('Sync refused: the input is empty, and the scope holds 4 assets');
		expect(writes()).toEqual([]);
	});

	describe('as an AI tool', () => {
		const asTool = { asTool: true };

		test('by default every call is a dry run, whatever Dry Run says', async () => {
			const [items] = await sync(tonight(), { dryRun: false }, asTool);
			expect(items.every((item) => item.json.dryRun === true)).toBe(true);
			expect(writes()).toEqual([]);
		});

		test('set to apply an approved plan: a call without a plan id is a dry run; with the id it applies, if the plan is still that one', async () => {
			const parameters = { toolMode: 'apply' };
			const [proposed] = await sync(tonight(), parameters, asTool);
			expect(proposed.every((item) => item.json.dryRun === true)).toBe(true);
			expect(writes()).toEqual([]);
			const id = proposed[0].json.planId as string;
			// another plan's digest
			const other = id.replace(
				/-([0-9a-f]{15})([0-9a-f])-t/,
				(_, head: string, last: string) => `-${head}${last === '0' ? '1' : '0'}-t`,
			);
			const wrong = await failureOf(
				sync(tonight(), { ...parameters, applyOnlyPlan: other }, asTool),
			);
			expect(wrong.message).toMatch(/^Sync refused: the plan is not the one approved/);
			expect(writes()).toEqual([]);
			const [applied] = await sync(tonight(), { ...parameters, applyOnlyPlan: id }, asTool);
			expect(applied.every((item) => item.json.dryRun === false)).toBe(true);
			expect(writes()).toHaveLength(3);
		});

		test('the guard still holds when the agent applies', async () => {
			const parameters = { toolMode: 'apply', maxRemovalPercent: 10 };
			const [proposed] = await sync([row(1)], parameters, asTool);
			expect(proposed[0].json.wouldBeRefused).toMatch(/^Sync stopped by its guard/);
			const error = await failureOf(
				sync([row(1)], { ...parameters, applyOnlyPlan: proposed[0].json.planId }, asTool),
			);
			expect(error.message).toMatch(/^Sync stopped by its guard/);
			expect(writes()).toEqual([]);
		});
	});
});
