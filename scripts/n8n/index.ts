/**
 * Running real n8n with this package, as `npm start`, the end-to-end suites and the bench all
 * do: install (cache), user folder and credentials, the CLI, a server and its REST API, queue mode,
 * reading executions from n8n's database.
 */
export * from './cli';
export * from './db';
export * from './errors';
export * from './examples';
export * from './executions';
export * from './home';
export * from './net';
export * from './package';
export * from './paths';
export * from './rest';
export * from './runData';
export * from './server';
export * from './workflow';
export * from './queue';
