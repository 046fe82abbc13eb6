import type { ResourceSchema } from '../../nodes/shared/schema/fields';
import { clientPerson } from '../auth';
import type { Clock } from '../clock';
import { compileQueryFilter } from '../filtering';
import { freeText, listReply, pageOf, parseWindow, withinWindow, type Cursors } from '../paging';
import { Answer, invalid, JSON_TYPE, type Reply } from '../problems';
import type { WriteContext } from '../records/common';
import type { ApiRequest } from '../router';
import { indexAfterId, type RecordTable, type Store, type StoredRecord } from '../store';

/** `GET` on a collection: `filter`, `q`, `since`, `until`, `limit`, `after`. */
export function listRecords(
	{ req, url }: ApiRequest,
	table: RecordTable,
	schema: ResourceSchema,
	searchable: (record: StoredRecord) => unknown[],
	cursors: Cursors,
): Reply {
	const query = url.searchParams;
	const window = parseWindow(query, cursors);
	const filter = compileQueryFilter(query.get('filter'), schema);
	if (filter.error !== undefined) {
		throw new Answer(
			invalid({ filter: [filter.error] }, `The filter is not valid: ${filter.error}`),
		);
	}
	// records that can match, in id order: those the External IDs name, or all
	const candidates = filter.externalIds ? recordsNamed(table, filter.externalIds) : table;
	const page = pageOf(candidates, window, [
		withinWindow(window),
		filter.predicate,
		freeText(query.get('q'), searchable),
	]);
	return listReply(req, url, page, cursors);
}

/** The records with these External IDs (case aside), in id order, as a list to page through. */
function recordsNamed(table: RecordTable, externalIds: readonly string[]) {
	const byId = new Map<string, StoredRecord>();
	for (const externalId of externalIds) {
		for (const record of table.withExternalIdCaseless(externalId)) byId.set(record.id, record);
	}
	const records = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
	return { all: () => records, indexAfter: (id: string) => indexAfterId(records, id) };
}

export const ok = (body: unknown): Reply => ({ status: 200, body, contentType: JSON_TYPE });

export const noContent: Reply = { status: 204 };

/** The actor, clock and custom field definitions a write by this request uses. */
export const writeContextOf = (
	{ grant }: ApiRequest,
	store: Store,
	clock: Clock,
): WriteContext => ({
	actor: clientPerson(grant.client.id),
	stamp: () => clock.stamp(),
	customFieldDefinitions: store.customFieldDefinitions,
});
