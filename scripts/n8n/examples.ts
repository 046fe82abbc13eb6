import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { WorkflowJson } from './cli';
import type { N8nHome } from './home';
import { repoRoot } from './paths';

/** The credential every workflow in examples/ refers to (`credentials.stockroomOAuth2Api`). */
export const EXAMPLE_CREDENTIAL = { id: 'stockroomSandbox', name: 'Stockroom sandbox' } as const;

export const examplesDir = path.join(repoRoot, 'examples');

/** Every workflow JSON in examples/, by file name. */
export function exampleWorkflows(): Array<{ file: string; workflow: WorkflowJson }> {
	if (!existsSync(examplesDir)) return [];
	return readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			workflow: JSON.parse(readFileSync(path.join(examplesDir, file), 'utf8')) as WorkflowJson,
		}));
}

/**
 * Imports the examples the folder does not have yet (matched by id, or by name for one without),
 * in one n8n process; the user's edits of imported ones are kept. Returns the imported names.
 */
export async function importMissingExamples(home: N8nHome): Promise<string[]> {
	const present = home.workflows();
	const missing = exampleWorkflows().filter(({ workflow }) =>
		workflow.id
			? !present.some((existing) => existing.id === workflow.id)
			: !present.some((existing) => existing.name === workflow.name),
	);
	if (missing.length === 0) return [];
	const dir = mkdtempSync(path.join(home.userFolder, 'examples-'));
	try {
		for (const { file, workflow } of missing) {
			writeFileSync(
				path.join(dir, file),
				JSON.stringify({ active: false, settings: {}, ...workflow }),
			);
		}
		await home.importWorkflowFolder(dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return missing.map(({ workflow }) => workflow.name);
}
