/** A filter that does not parse or does not fit the resource; `column` is 1-based. */
export class FilterError extends Error {
	readonly column: number;

	/** The message without the `column N: ` prefix. */
	readonly reason: string;

	constructor(column: number, reason: string) {
		super(`column ${column}: ${reason}`);
		this.name = 'FilterError';
		this.column = column;
		this.reason = reason;
	}
}
