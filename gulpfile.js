const { src, dest, parallel } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons and the codex files next to the nodes.
function copyIcons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function copyNodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.node.json'], { base: '.' }).pipe(dest('dist'));
}

exports['build:assets'] = parallel(copyIcons, copyNodeAssets);
