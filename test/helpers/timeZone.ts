import { runInThisContext } from 'node:vm';

/**
 * Runs `run` with this process's time zone set to `zone`, then puts it back: a check that a value
 * is read the same whatever the zone of the machine n8n runs on.
 */
export async function inTimeZone<T>(zone: string, run: () => T | Promise<T>): Promise<T> {
	// the process's own environment (jest's `process` is a copy of it for the test's context)
	const { env } = runInThisContext('process') as NodeJS.Process;
	const before = env.TZ;
	env.TZ = zone;
	try {
		// the zone took effect: local midnight is not UTC midnight
		if (new Date(2024, 2, 1).getTimezoneOffset() === 0)
			throw new Error(`the time zone ${zone} did not take effect`);
		return await run();
	} finally {
		if (before === undefined) delete env.TZ;
		else env.TZ = before;
	}
}
