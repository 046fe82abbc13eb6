import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

import { HarnessError } from './errors';

export const PACKAGE_NAME = 'n8n-nodes-stockroom';
export const CREDENTIAL_TYPE = 'stockroomOAuth2Api';
export const N8N_VERSION = process.env.N8N_VERSION ?? '2.41.1';
/** n8n's major version: 1.x and 2.x differ in a few places the tests look at. */
export const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
/** n8n before 1.100 (the 1.85 floor): older REST shapes and texts in a few places. */
export const N8N_BEFORE_1_100 = N8N_MAJOR < 2 && Number(N8N_VERSION.split('.')[1]) < 100;

/** The repository root, found by walking up (it runs from scripts/n8n/ and from build/scripts/n8n/). */
export const repoRoot: string = (() => {
	for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const manifest = path.join(dir, 'package.json');
		if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME) {
			return dir;
		}
	}
	throw new HarnessError(`No ${PACKAGE_NAME} package.json above ${__dirname}`);
})();

/** Same folder as scripts/node24.sh computes. */
export const cacheDir: string =
	process.env.STOCKROOM_CACHE ??
	path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), PACKAGE_NAME);

export const preloadPath = path.join(repoRoot, 'scripts', 'n8n-preload.cjs');

let installDir: string | undefined;

/** The cached n8n install, installing it on first use (scripts/n8n-install.sh reports progress). */
export function n8nInstallDir(): string {
	if (installDir) return installDir;
	const candidate = path.join(cacheDir, `n8n-${N8N_VERSION}`);
	if (existsSync(path.join(candidate, '.complete'))) {
		installDir = candidate;
	} else {
		const script = path.join(repoRoot, 'scripts', 'n8n-install.sh');
		const printed = execFileSync('bash', [script], {
			env: { ...process.env, N8N_VERSION },
			stdio: ['ignore', 'pipe', 'inherit'],
			encoding: 'utf8',
		});
		installDir = printed.trim().split('\n').pop() as string;
	}
	return installDir;
}

/** The Node that runs n8n: this one, or the older one an old n8n was installed for (its `.node`). */
export function n8nNode(): string {
	const pinned = path.join(n8nInstallDir(), '.node');
	return existsSync(pinned) ? readFileSync(pinned, 'utf8').trim() : process.execPath;
}

export function n8nBin(): string {
	return path.join(n8nInstallDir(), 'node_modules', 'n8n', 'bin', 'n8n');
}
