/** Ends a jest run with the plain `N passed, N failed` line that CI reads. */
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
	}
}
module.exports = SummaryReporter;
