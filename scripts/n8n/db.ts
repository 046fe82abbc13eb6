import { DatabaseSync, type SQLInputValue } from 'node:sqlite';

const SQLITE_CANTOPEN = 14;
/**
 * How long a read waits for n8n's write lock: n8n 1.x keeps SQLite in rollback-journal mode,
 * where a write locks readers out ("database is locked") for as long as it lasts.
 */
const BUSY_TIMEOUT_MS = 15_000;

function open(dbPath: string): DatabaseSync {
	try {
		return new DatabaseSync(dbPath, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
	} catch (error) {
		// read-only, SQLite cannot open n8n's WAL database while its -wal/-shm files are missing,
		// as for a moment around n8n's start and stop; a read-write connection recreates them
		if ((error as { errcode?: number }).errcode !== SQLITE_CANTOPEN) throw error;
		return new DatabaseSync(dbPath, { timeout: BUSY_TIMEOUT_MS });
	}
}

/** Rows from an n8n user folder's SQLite database (n8n may be running; nothing is written). */
export function queryDb<T>(dbPath: string, sql: string, ...params: SQLInputValue[]): T[] {
	const db = open(dbPath);
	try {
		return db.prepare(sql).all(...params) as T[];
	} finally {
		db.close();
	}
}
