import { DatabaseSync, type SQLInputValue } from 'node:sqlite';

/** Rows from an n8n user folder's SQLite database, read-only (n8n may be running). */
export function queryDb<T>(dbPath: string, sql: string, ...params: SQLInputValue[]): T[] {
	const db = new DatabaseSync(dbPath, { readOnly: true });
	try {
		return db.prepare(sql).all(...params) as T[];
	} finally {
		db.close();
	}
}
