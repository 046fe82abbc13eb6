// `npm run lint`: n8n's verification scan (its own analyzePackage) over the sources and over the
// packed tarball, then ordinary strict TypeScript lint over everything else.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let failed = false;

function report(label, result) {
	if (result.passed) {
		console.log(`✔ ${label}`);
		return;
	}
	failed = true;
	console.log(`✘ ${label}: ${result.message}`);
	if (result.details) console.log(result.details);
}

report('verification scan: sources (package.json, nodes/, credentials/)', await analyzePackage(root, SOURCE_FILE_PATTERNS));

const packDir = mkdtempSync(path.join(tmpdir(), 'stockroom-pack-'));
try {
	execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
	const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
	const unpacked = path.join(packDir, 'package');
	execFileSync('tar', ['-xzf', path.join(packDir, tarball), '-C', packDir]);
	report('verification scan: packed tarball (dist/ and package.json)', await analyzePackage(unpacked, ['**/*.js', 'package.json']));
} finally {
	rmSync(packDir, { recursive: true, force: true });
}

const eslint = new ESLint({ cwd: root });
const results = await eslint.lintFiles(['test/**/*.ts', 'scripts/**/*.mjs']);
const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
if (errors) {
	failed = true;
	console.log((await eslint.loadFormatter('stylish')).format(results));
}
report('strict lint: tests, sandbox, scripts and benchmarks', { passed: errors === 0, message: `${errors} problems` });

process.exit(failed ? 1 : 0);
