import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { OLDEST_SUPPORTED_N8N } from '../../nodes/shared/supportedN8n';
import { WRITES_AT_ONCE } from '../../nodes/shared/pool';
import {
	DEFAULT_MAX_CLEAR_PERCENT,
	DEFAULT_MAX_REMOVAL_PERCENT,
} from '../../nodes/shared/sync/guard';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');

/** The versions CI proves the package on (.ci/run). */
const ciRun = read('.ci/run');
const ciVersions = [...ciRun.matchAll(/\b(\d+\.\d+\.\d+)\b/g)].map((match) => match[1]);
const nodeMajor = /NODE24_VERSION:-(\d+)\./.exec(read('scripts/node24.sh'))![1];

/**
 * Every number README states, and what checks it. A number README states that is not here fails
 * the test: add it with its check, or take it out of README.
 */
const CHECKED: Record<string, () => void> = {
	// the oldest n8n the nodes load on (supportedN8n.ts, tested by test/unit/supportedN8n.test.ts)
	[OLDEST_SUPPORTED_N8N.replace(/\.0$/, '')]: () =>
		expect(OLDEST_SUPPORTED_N8N).toMatch(/^1\.85\./),
	// the n8n versions CI runs every end-to-end suite on
	'2.41.1': () => expect(ciVersions).toContain('2.41.1'),
	'2.41': () => expect(ciVersions).toContain('2.41.1'),
	'1.123.81': () => expect(ciRun).toContain('N8N_1X=1.123.81'),
	'2.x': () => expect(ciVersions.some((version) => version.startsWith('2.'))).toBe(true),
	'1.x': () => expect(ciVersions.some((version) => version.startsWith('1.'))).toBe(true),
	// Node 24, which scripts/node24.sh provides
	[nodeMajor]: () => expect(nodeMajor).toBe('24'),
	// the guard's defaults (test/integration/sync*.test.ts prove what they do)
	[String(DEFAULT_MAX_REMOVAL_PERCENT)]: () =>
		expect([DEFAULT_MAX_REMOVAL_PERCENT, DEFAULT_MAX_CLEAR_PERCENT]).toEqual([10, 10]),
	// writes in flight at once (test/integration/sync-dirty.test.ts counts them at the service)
	[String(WRITES_AT_ONCE)]: () => expect(WRITES_AT_ONCE).toBe(8),
};

/** README's prose: code, links' targets, HTML tags, list numbers and protocol names taken out. */
function prose(text: string): string {
	return text
		.replace(/```[\s\S]*?```/g, ' ')
		.replace(/^\s*\d+\. /gm, ' ')
		.replace(/OAuth 2\.0/g, 'OAuth')
		.replace(/`[^`]*`/g, ' ')
		.replace(/\]\([^)]*\)/g, '] ')
		.replace(/<[^>]+>/g, ' ');
}

describe('README', () => {
	test('leads: at most about 300 lines, the two commands near the top', () => {
		expect(readme.split('\n').length).toBeLessThanOrEqual(300);
		const top = readme.split('\n').slice(0, 30).join('\n');
		expect(top).toContain('npm start');
		expect(top).toContain('npm test');
	});

	test('every relative link and picture, in README and docs/, is to a file that exists (and an anchor that does)', () => {
		const pages = [
			'README.md',
			...readdirSync(path.join(root, 'docs'))
				.filter((file) => file.endsWith('.md'))
				.map((file) => `docs/${file}`),
		];
		const anchorsOf = (file: string) =>
			new Set(
				[...read(file).matchAll(/^#+ (.+)$/gm)].map((match) =>
					match[1]
						.toLowerCase()
						.replace(/[^\p{L}\p{N} -]/gu, '')
						.replace(/ /g, '-'),
				),
			);
		const broken: string[] = [];
		for (const page of pages) {
			const text = read(page);
			const targets = [
				...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]),
				...[...text.matchAll(/<img[^>]* src="([^"]+)"/g)].map((match) => match[1]),
			].filter((target) => !/^(https?:|mailto:)/.test(target));
			for (const target of targets) {
				const [file, anchor] = target.split('#');
				const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
				if (!existsSync(path.join(root, resolved))) broken.push(`${page}: ${target}`);
				else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
					broken.push(`${page}: ${target} (no such heading)`);
			}
		}
		expect(broken).toEqual([]);
	});

	test('every number it states is one a test or the bench checks', () => {
		const numbers = [...prose(readme).matchAll(/\b\d+(?:\.\d+)*(?:\.x)?\b/g)].map(
			(match) => match[0],
		);
		const unchecked = [...new Set(numbers)].filter((number) => !(number in CHECKED));
		expect(unchecked).toEqual([]);
		for (const number of new Set(numbers)) CHECKED[number]();
	});
});
