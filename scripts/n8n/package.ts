import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
} from 'node:fs';
import path from 'node:path';

import { HarnessError } from './errors';
import { cacheDir, PACKAGE_NAME, repoRoot } from './paths';

/** Every file under a folder, sorted, relative to it. */
function listFiles(dir: string): string[] {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
		.sort();
}

/** Hash of what `npm pack` ships, so only a changed build is packed again. */
function packageKey(): string {
	const dist = path.join(repoRoot, 'dist');
	if (!existsSync(dist)) throw new HarnessError('dist/ is missing: run `npm run build` first');
	const hash = createHash('sha256').update(readFileSync(path.join(repoRoot, 'package.json')));
	for (const file of listFiles(dist)) {
		hash.update(file).update(readFileSync(path.join(dist, file)));
	}
	return hash.digest('hex').slice(0, 16);
}

/** `npm pack`s the built package once per build and returns the unpacked folder. */
export function packedPackageDir(): string {
	const target = path.join(cacheDir, 'packed', packageKey());
	if (existsSync(path.join(target, 'package.json'))) return target;
	mkdirSync(path.dirname(target), { recursive: true });
	const work = mkdtempSync(`${target}.tmp-`);
	try {
		const [{ filename }] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
				cwd: repoRoot,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'pipe'],
			}),
		) as Array<{ filename: string }>;
		execFileSync('tar', ['-xzf', path.join(work, path.basename(filename)), '-C', work]);
		// a concurrent run may have finished first; its copy is identical
		if (!existsSync(target)) renameSync(path.join(work, 'package'), target);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
	return target;
}

/** Installs the package where n8n looks for community packages, keeping real node type names. */
export function installPackage(userFolder: string): string {
	const destination = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	rmSync(destination, { recursive: true, force: true });
	cpSync(packedPackageDir(), destination, { recursive: true });
	return destination;
}
