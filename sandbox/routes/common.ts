import type { ResourceSchema } from '../../nodes/shared/schema/fields';
import { clientPerson } from '../auth';
import type { Clock } from '../clock';
import { compileQueryFilter } from '../filtering';
import { freeText, listReply, pageOf, parseWindow, withinWindow, type Cursors } from '../paging';
import { Answer, invalid, JSON_TYPE, type Reply } from '../problems';
import type { WriteContext } from '../records/common';
import type { ApiRequest } from '../router';
import type { RecordTable, Store, StoredRecord } from '../store';

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
	const page = pageOf(table, window, [
		withinWindow(window),
		filter.predicate,
		freeText(query.get('q'), searchable),
	]);
	return listReply(req, url, page, cursors);
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
