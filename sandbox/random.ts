/** A small seeded PRNG (mulberry32), so `--seed` makes data and faults repeatable. */
export class Random {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** An integer in [min, max]. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	pick<T>(values: readonly T[]): T {
		return values[Math.floor(this.next() * values.length)];
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	/** `length` lowercase hex digits. */
	hex(length: number): string {
		let text = '';
		while (text.length < length)
			text += Math.floor(this.next() * 0x10000)
				.toString(16)
				.padStart(4, '0');
		return text.slice(0, length);
	}

	/** Upper-case letters and digits, as in serial numbers. */
	code(length: number): string {
		const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
		let text = '';
		for (let i = 0; i < length; i++) text += alphabet[Math.floor(this.next() * alphabet.length)];
		return text;
	}
}
