import { readFileSync } from 'node:fs';
import path from 'node:path';

import { parse } from 'yaml';

const root = path.join(__dirname, '..', '..');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, string>;
	env?: Record<string, string>;
}
interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

const workflow = (name: string) =>
	parse(readFileSync(path.join(root, '.github', 'workflows', name), 'utf8')) as Workflow;
const runs = (steps: Step[]) => steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	scripts: Record<string, string>;
};

describe('GitHub Actions workflows', () => {
	test('CI: every push to main and every pull request; install, lint, build and test on Node 24', () => {
		const ci = workflow('ci.yml');
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
		expect(ci.on.push).toEqual({ branches: ['main'] });
		expect(ci.permissions).toEqual({ contents: 'read' });
		const [job] = Object.values(ci.jobs);
		expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
		expect(
			job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with,
		).toMatchObject({ 'node-version': '24' });
		expect(runs(job.steps)).toEqual(['npm ci', 'npm run lint', 'npm run build', 'npm test']);
	});

	test('Publish: on a version tag, with id-token: write, npm ci then the release script', () => {
		const publish = workflow('publish.yml');
		expect(publish.on).toEqual({ push: { tags: ['*.*.*'] } });
		const [job] = Object.values(publish.jobs);
		// the OIDC token for trusted publishing and the provenance statement; nothing else written
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		const commands = runs(job.steps);
		expect(commands[0]).toBe('npm ci');
		const release = job.steps.find((step) => step.run?.includes('npm run release'))!;
		// the token is a fallback: used only when the secret is set
		expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(release.run).toMatch(/if \[ -n "\$NPM_TOKEN" \]; then npm config set/);
		expect(commands.indexOf(release.run!.trim())).toBeGreaterThan(commands.indexOf('npm test'));
	});

	test('the release script is n8n-node release; a plain npm publish is refused (prepublishOnly)', () => {
		expect(packageJson.scripts.release).toBe('n8n-node release');
		expect(packageJson.scripts.prepublishOnly).toBe('n8n-node prerelease');
	});
});
