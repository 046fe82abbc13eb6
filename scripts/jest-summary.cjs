// Reads jest's --json results and prints each file's time (slowest first, with --files) and the
// plain `N passed, N failed` line every test command ends with (a suite that could not run counts
// as a failure).
const fs = require('node:fs');
const path = require('node:path');

const [file, ...flags] = process.argv.slice(2);
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
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
