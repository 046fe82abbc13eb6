/** A failure of the harness or of n8n itself (crash, signal, timeout), never a test verdict. */
export class HarnessError extends Error {
	constructor(message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = 'HarnessError';
	}
}

/** The last lines of a process's output, for error messages. */
export function tail(text: string, lines = 30): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}
