// `npm run lint`: n8n's verification scan (its own analyzePackage) over the sources and over the
// packed tarball, the ESLint config of n8n's own node tooling (`n8n-node lint`, cloud rules on)
// over package.json, nodes/ and credentials/, then ordinary strict TypeScript lint over the rest.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let failed = false;

// the tarball and the generated descriptions come from dist/: `n8n-node release` lints before it
// builds, so build first when there is nothing built
if (!existsSync(path.join(root, 'dist', 'nodes'))) {
	execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

function report(label, result) {
	if (result.passed && result.message === 'No files found to analyze') {
		result = { passed: false, message: 'no files were scanned' };
	}
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

// Much of the node UI is generated from the resource schemas, which the scan cannot see in the
// sources. Write each built node's description out as a literal and scan that too.
const require = createRequire(import.meta.url);
const identifier = /^[A-Za-z_$][\w$]*$/;
function literal(value, indent = '\t', key = '') {
	if (Array.isArray(value)) {
		if (key === 'inputs' || key === 'outputs') return `[${value.map((type) => (type === 'main' ? 'NodeConnectionTypes.Main' : JSON.stringify(type))).join(', ')}]`;
		if (!value.length) return '[]';
		return `[\n${value.map((element) => `${indent}\t${literal(element, `${indent}\t`)},`).join('\n')}\n${indent}]`;
	}
	if (value && typeof value === 'object') {
		const entries = Object.entries(value).filter(([, member]) => member !== undefined);
		if (!entries.length) return '{}';
		const lines = entries.map(([name, member]) => `${indent}\t${identifier.test(name) ? name : JSON.stringify(name)}: ${literal(member, `${indent}\t`, name)},`);
		return `{\n${lines.join('\n')}\n${indent}}`;
	}
	return JSON.stringify(value);
}
const generatedDir = mkdtempSync(path.join(tmpdir(), 'stockroom-generated-'));
try {
	// the icon and credential rules look for the package's own files beside the nodes
	cpSync(path.join(root, 'icons'), path.join(generatedDir, 'icons'), { recursive: true });
	cpSync(path.join(root, 'package.json'), path.join(generatedDir, 'package.json'));
	cpSync(path.join(root, 'credentials'), path.join(generatedDir, 'credentials'), { recursive: true });
	const { n8n } = require(path.join(root, 'package.json'));
	for (const file of n8n.nodes) {
		const exported = require(path.join(root, file));
		for (const [className, NodeClass] of Object.entries(exported)) {
			const folder = path.join(generatedDir, 'nodes', className);
			mkdirSync(folder, { recursive: true });
			const source = `import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';\n\nexport class ${className} implements INodeType {\n\tdescription: INodeTypeDescription = ${literal(new NodeClass().description)};\n}\n`;
			writeFileSync(path.join(folder, `${className}.node.ts`), source);
		}
	}
	report('verification scan: node descriptions as generated from the schemas', await analyzePackage(generatedDir, ['nodes/**/*.ts']));
} finally {
	rmSync(generatedDir, { recursive: true, force: true });
}

// the config `n8n-node lint` applies (@n8n/node-cli): a rule n8n adds to its tooling shows here
// the day the dev dependency is bumped
const { config: n8nNodeConfig } = require('@n8n/node-cli/eslint');
const n8nNodeLint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: n8nNodeConfig });
const n8nNodeResults = await n8nNodeLint.lintFiles(['package.json', 'nodes/**/*.ts', 'credentials/**/*.ts']);
const n8nNodeErrors = n8nNodeResults.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
if (n8nNodeErrors) console.log((await n8nNodeLint.loadFormatter('stylish')).format(n8nNodeResults));
report("n8n-node lint config (@n8n/node-cli, cloud rules): package.json, nodes/, credentials/", {
	passed: n8nNodeErrors === 0 && n8nNodeResults.length > 0,
	message: n8nNodeResults.length ? `${n8nNodeErrors} problems` : 'no files were linted',
});

const eslint = new ESLint({ cwd: root });
const results = await eslint.lintFiles(['sandbox/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'scripts/**/*.mjs']);
const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
if (errors) {
	failed = true;
	console.log((await eslint.loadFormatter('stylish')).format(results));
}
report('strict lint: tests, sandbox, scripts and benchmarks', { passed: errors === 0, message: `${errors} problems` });

process.exit(failed ? 1 : 0);
