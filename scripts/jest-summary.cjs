// Reads jest's --json results and prints each file's time (slowest first, with --files) and the
// plain `N passed, N failed` line every test command ends with (a suite that could not run counts
// as a failure).
const fs = require('node:fs');
const path = require('node:path');

// one or more result files (jest runs in more than one process), summed
const args = process.argv.slice(2);
const flags = args.filter((arg) => arg.startsWith('--'));
const runs = args
	.filter((arg) => !arg.startsWith('--'))
	.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
const results = {
	testResults: runs.flatMap((run) => run.testResults),
	numPassedTests: sum('numPassedTests'),
	numFailedTests: sum('numFailedTests'),
	numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites'),
};
if (flags.includes('--files')) {
	console.log('\ntime per file:');
	for (const suite of [...results.testResults].sort(
		(a, b) => b.endTime - b.startTime - (a.endTime - a.startTime),
	)) {
		const seconds = Math.round((suite.endTime - suite.startTime) / 1000);
		console.log(`  ${String(seconds).padStart(5)} s  ${path.relative(process.cwd(), suite.name)}`);
	}
}
const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
console.log(`\n${results.numPassedTests} passed, ${failed} failed`);
