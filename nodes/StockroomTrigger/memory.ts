/**
 * What the trigger remembers per record, kept small enough for n8n's static data: a map from
 * record id to one instant (a watched value, or a modification time), packed into one string.
 *
 * Entries are sorted by instant and stored as differences, so the instants of a bulk sync cost a
 * byte or two each; ids of the service's usual form (24 hex digits) cost 12 bytes. About 14 to 19
 * characters per record in all, exact (no hashing, so no collisions).
 */

/** Instants are counted in this unit: milliseconds for date-times, days for calendar dates. */
export type MemoryUnit = 'ms' | 'day';

export interface PackedMemory {
	unit: MemoryUnit;
	/** How many records; also lets a reader of the static data see the size at a glance. */
	count: number;
	data: string;
}

const UNIT_MS: Record<MemoryUnit, number> = { ms: 1, day: 86_400_000 };
const HEX_ID = /^[0-9a-f]{24}$/;
const HEX_IDS = 1;
const TEXT_IDS = 2;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_INDEX = new Map([...BASE64].map((char, index) => [char, index]));

class ByteWriter {
	private bytes = new Uint8Array(1024);
	length = 0;

	push(byte: number): void {
		if (this.length === this.bytes.length) {
			const grown = new Uint8Array(this.bytes.length * 2);
			grown.set(this.bytes);
			this.bytes = grown;
		}
		this.bytes[this.length++] = byte;
	}

	/** An unsigned integer up to 2^53, seven bits per byte (arithmetic, not 32-bit bit operations). */
	varint(value: number): void {
		let rest = value;
		while (rest >= 0x80) {
			this.push((rest % 0x80) + 0x80);
			rest = Math.floor(rest / 0x80);
		}
		this.push(rest);
	}

	result(): Uint8Array {
		return this.bytes.subarray(0, this.length);
	}
}

class ByteReader {
	private offset = 0;

	constructor(private readonly bytes: Uint8Array) {}

	byte(): number {
		if (this.offset >= this.bytes.length) throw new Error('the remembered records are cut short');
		return this.bytes[this.offset++];
	}

	varint(): number {
		let value = 0;
		let scale = 1;
		for (;;) {
			const byte = this.byte();
			value += (byte & 0x7f) * scale;
			if (byte < 0x80) return value;
			scale *= 0x80;
		}
	}
}

const zigzag = (value: number): number => (value >= 0 ? value * 2 : -value * 2 - 1);
const unzigzag = (value: number): number => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

function toBase64(bytes: Uint8Array): string {
	let text = '';
	for (let i = 0; i < bytes.length; i += 3) {
		const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
		const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
		for (let c = 0; c < chars; c++) text += BASE64[(chunk >> (18 - 6 * c)) & 63];
	}
	return text;
}

function fromBase64(text: string): Uint8Array {
	const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
	let bits = 0;
	let buffer = 0;
	let length = 0;
	for (const char of text) {
		const index = BASE64_INDEX.get(char);
		if (index === undefined) throw new Error('the remembered records are not readable');
		buffer = ((buffer << 6) | index) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			bytes[length++] = (buffer >> bits) & 0xff;
		}
	}
	return bytes.subarray(0, length);
}

/** Packs id → instant (milliseconds since 1970; whole days when the unit is days). */
export function packMemory(memory: ReadonlyMap<string, number>, unit: MemoryUnit): PackedMemory {
	const scale = UNIT_MS[unit];
	const entries = [...memory].sort(([idA, a], [idB, b]) => a - b || (idA < idB ? -1 : 1));
	const hexIds = entries.every(([id]) => HEX_ID.test(id));
	const writer = new ByteWriter();
	writer.push(hexIds ? HEX_IDS : TEXT_IDS);
	writer.varint(entries.length);
	let previous = 0;
	entries.forEach(([, instant], index) => {
		const value = Math.round(instant / scale);
		writer.varint(index === 0 ? zigzag(value) : value - previous);
		previous = value;
	});
	for (const [id] of entries) {
		if (hexIds) {
			for (let i = 0; i < 24; i += 2) writer.push(parseInt(id.slice(i, i + 2), 16));
		} else {
			writer.varint(id.length);
			for (let i = 0; i < id.length; i++) writer.varint(id.charCodeAt(i));
		}
	}
	return { unit, count: entries.length, data: toBase64(writer.result()) };
}

/** The map `packMemory` packed; throws when the text was not written by it. */
export function unpackMemory(packed: PackedMemory): Map<string, number> {
	const scale = UNIT_MS[packed.unit];
	const reader = new ByteReader(fromBase64(packed.data));
	const format = reader.byte();
	if (format !== HEX_IDS && format !== TEXT_IDS)
		throw new Error('the remembered records are not readable');
	const count = reader.varint();
	const instants: number[] = [];
	let value = 0;
	for (let index = 0; index < count; index++) {
		value = index === 0 ? unzigzag(reader.varint()) : value + reader.varint();
		instants.push(value * scale);
	}
	const memory = new Map<string, number>();
	for (const instant of instants) {
		let id = '';
		if (format === HEX_IDS) {
			for (let i = 0; i < 12; i++) id += reader.byte().toString(16).padStart(2, '0');
		} else {
			const length = reader.varint();
			for (let i = 0; i < length; i++) id += String.fromCharCode(reader.varint());
		}
		memory.set(id, instant);
	}
	return memory;
}
