/**
 * `npm run e2e:queue`: n8n in queue mode (Redis, Postgres, a main and two workers) with durable
 * poller cursors. The suites of every node and of the trigger run unchanged, each workflow on a
 * worker, plus what only queue mode has.
 * @type {import('jest').Config}
 */
module.exports = {
	...require('./jest.e2e.config.js'),
	testMatch: [
		'**/queue-mode.queue.ts',
		'**/asset.e2e.ts',
		'**/contract-user.e2e.ts',
		'**/trigger.e2e.ts',
		'**/durable-polls.queue.ts',
	],
};
