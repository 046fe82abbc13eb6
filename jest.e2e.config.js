/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	// type-checking is done once by `tsc -p tsconfig.dev.json`; jest only transpiles
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	// every n8n command takes seconds; a trigger test waits for n8n's schedule
	testTimeout: 5 * 60 * 1000,
};
