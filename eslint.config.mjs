// Strict lint for everything that does not ship (tests, sandbox, scripts, benchmarks).
// nodes/ and credentials/ are linted by n8n's own verification scan (scripts/lint.mjs).
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist/**', 'build/**', 'node_modules/**'] },
	{
		files: ['**/*.ts'],
		extends: [tseslint.configs.strict],
		rules: {
			'@typescript-eslint/no-non-null-assertion': 'off',
			// `const { dropped: _dropped, ...rest } = record` is how a key is left out
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
);
