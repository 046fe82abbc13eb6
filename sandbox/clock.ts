/** The clock for record timestamps and new ids. Tests may replace its source. */
export class Clock {
	private last = -Infinity;

	constructor(private source: () => Date = () => new Date()) {}

	/** Replaces the time source; stamps may then go back (the test chooses the time). */
	set(source: () => Date): void {
		this.source = source;
		this.last = -Infinity;
	}

	now(): Date {
		return this.source();
	}

	/** A write timestamp (ISO, milliseconds, `Z`) that never goes backwards. */
	stamp(): string {
		this.last = Math.max(this.source().getTime(), this.last);
		return new Date(this.last).toISOString();
	}
}
