import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');
const SOURCES = ['nodes/shared', 'sandbox'];

/**
 * Transpiles the sandbox and the shared code it imports into `outDir` (same layout as the
 * repository), so child processes can run the CLI with plain `node`. Returns the CLI's path.
 */
export function transpileSandbox(outDir: string): string {
	for (const folder of SOURCES) {
		for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
			if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
			const source = join(ROOT, folder, file);
			const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
				fileName: source,
				compilerOptions: {
					module: ts.ModuleKind.CommonJS,
					target: ts.ScriptTarget.ES2022,
					esModuleInterop: true,
				},
			});
			const target = join(outDir, relative(ROOT, source)).replace(/\.ts$/, '.js');
			mkdirSync(dirname(target), { recursive: true });
			writeFileSync(target, outputText);
		}
	}
	// the shared code's runtime imports (luxon) resolve from the repository's packages
	const modules = join(outDir, 'node_modules');
	if (!existsSync(modules)) symlinkSync(join(ROOT, 'node_modules'), modules);
	return join(outDir, 'sandbox', 'cli.js');
}
