import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	main?: string;
	engines: { node: string };
	files: string[];
	license: string;
	repository: { url: string };
	homepage: string;
	dependencies?: Record<string, string>;
	peerDependencies: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};

interface Packed {
	filename: string;
	size: number;
	unpackedSize: number;
	files: Array<{ path: string }>;
}

/** What `npm pack` puts in the tarball a user downloads (dist/ must be built). */
function pack(destination?: string): Packed {
	const args = [
		'pack',
		'--json',
		...(destination ? ['--pack-destination', destination] : ['--dry-run']),
	];
	const [packed] = JSON.parse(
		execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
	) as Packed[];
	return packed;
}

describe('the tarball a user downloads', () => {
	const packed = pack();
	const files = packed.files.map((file) => file.path).sort();

	test('holds only dist/, README, LICENSE, CHANGELOG and package.json; no tests, sandbox or source maps', () => {
		const outside = files.filter((file) => !file.startsWith('dist/'));
		expect(outside).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
		expect(files.filter((file) => /(^|\/)(test|sandbox|bench|scripts)\//.test(file))).toEqual([]);
		// no map pointing at sources the tarball does not have
		expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
		for (const declared of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials]) {
			expect(files).toContain(declared);
		}
		// the filter evaluator ships: Sync checks with it that what it writes lands in its scope
		expect(files.filter((file) => /evaluate/.test(file))).toEqual([
			'dist/nodes/shared/filter/evaluate.d.ts',
			'dist/nodes/shared/filter/evaluate.js',
		]);
	});

	test('package.json: no main, engines, files, licence, repository; no runtime dependencies', () => {
		expect(packageJson.main).toBeUndefined();
		expect(packageJson.engines).toEqual({ node: '>=18.17' });
		expect(packageJson.files).toEqual(['dist', 'CHANGELOG.md']);
		expect(packageJson.license).toBe('MIT');
		expect(packageJson.repository.url).toBe(
			'git+https://github.com/stockroom-n8n/n8n-nodes-stockroom.git',
		);
		expect(packageJson.homepage).toBe(
			'https://github.com/stockroom-n8n/n8n-nodes-stockroom#readme',
		);
		expect(packageJson.dependencies).toBeUndefined();
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	test('carries no secret, and its size is the one docs/development.md states', () => {
		const work = mkdtempSync(path.join(tmpdir(), 'stockroom-tarball-'));
		try {
			const real = pack(work);
			execFileSync('tar', ['-xzf', path.join(work, path.basename(real.filename)), '-C', work]);
			// the code and metadata (README documents the local sandbox's demo client on purpose)
			const shipped = readdirSync(path.join(work, 'package'), {
				recursive: true,
				withFileTypes: true,
			})
				.filter((entry) => entry.isFile() && !/\.md$|^LICENSE$/.test(entry.name))
				.map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
				.join('\n');
			// the sandbox's demo and test clients, and anything that looks like a key
			for (const secret of ['stockroom-demo-secret', 'reader-secret', 'BEGIN PRIVATE KEY']) {
				expect(shipped).not.toContain(secret);
			}
			const release = readFileSync(path.join(root, 'docs', 'development.md'), 'utf8');
			const stated = /tarball is about (\d+) kB\s+\((\d+) kB\s+unpacked\)/.exec(release);
			expect(stated).not.toBeNull();
			const [, packedKb, unpackedKb] = stated!.map(Number);
			// within a tenth: the page need not change for every small edit
			expect(Math.abs(real.size / 1000 - packedKb)).toBeLessThanOrEqual(packedKb / 10);
			expect(Math.abs(real.unpackedSize / 1000 - unpackedKb)).toBeLessThanOrEqual(unpackedKb / 10);
		} finally {
			rmSync(work, { recursive: true, force: true });
		}
	});

	test('a plain npm publish is refused: releases go through npm run release', () => {
		const publish = spawnSync('npm', ['publish', '--dry-run'], { cwd: root, encoding: 'utf8' });
		expect(publish.status).not.toBe(0);
		expect(`${publish.stdout}${publish.stderr}`).toContain('npm run release');
	});
});
