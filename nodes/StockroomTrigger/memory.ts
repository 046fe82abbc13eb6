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

export const UNIT_MS: Record<MemoryUnit, number> = { ms: 1, day: 86_400_000 };
const HEX_ID = /^[0-9a-f]{24}$/;
const HEX_IDS = 1;
const TEXT_IDS = 2;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Every 12-bit value as its two base64 characters. */
const BASE64_PAIRS = Array.from(
	{ length: 4096 },
	(_, value) => BASE64[value >> 6] + BASE64[value & 63],
);
/** Character code → 6-bit value, 255 for a character that is not base64. */
const BASE64_VALUES = new Uint8Array(128).fill(255);
[...BASE64].forEach((char, index) => (BASE64_VALUES[char.charCodeAt(0)] = index));
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Value of a lower-case hex digit by character code. */
const hexDigit = (code: number): number => (code <= 57 ? code - 48 : code - 87);
/** Text is built in pieces of about this length and joined once. */
const CHUNK = 16_384;

class ByteWriter {
	length = 0;

	constructor(private bytes = new Uint8Array(1024)) {}

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
	const parts: string[] = [];
	let text = '';
	const whole = bytes.length - (bytes.length % 3);
	for (let i = 0; i < whole; i += 3) {
		const group = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
		text += BASE64_PAIRS[group >> 12] + BASE64_PAIRS[group & 4095];
		if (text.length >= CHUNK) {
			parts.push(text);
			text = '';
		}
	}
	// the last one or two bytes, unpadded
	if (whole < bytes.length) {
		const group = (bytes[whole] << 16) | ((bytes[whole + 1] ?? 0) << 8);
		const pair = BASE64_PAIRS[group >> 12] + BASE64_PAIRS[group & 4095];
		text += pair.slice(0, bytes.length - whole + 1);
	}
	parts.push(text);
	return parts.join('');
}

function fromBase64(text: string): Uint8Array {
	const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
	let bits = 0;
	let buffer = 0;
	let length = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		const value = code < 128 ? BASE64_VALUES[code] : 255;
		if (value === 255) throw new Error('the remembered records are not readable');
		buffer = ((buffer << 6) | value) & 0xffffff;
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
	const ids: string[] = [];
	const values = new Float64Array(memory.size);
	let hexIds = true;
	for (const [id, instant] of memory) {
		values[ids.length] = Math.round(instant / scale);
		ids.push(id);
		if (hexIds && !HEX_ID.test(id)) hexIds = false;
	}
	// by instant, then id: the same map always packs to the same text
	const order = Uint32Array.from(ids.keys()).sort(
		(a, b) => values[a] - values[b] || (ids[a] < ids[b] ? -1 : 1),
	);
	// room for a hex id and a long difference per record: one allocation in the usual case
	const writer = new ByteWriter(new Uint8Array(16 + ids.length * 20));
	writer.push(hexIds ? HEX_IDS : TEXT_IDS);
	writer.varint(ids.length);
	let previous = 0;
	order.forEach((index, position) => {
		const value = values[index];
		writer.varint(position === 0 ? zigzag(value) : value - previous);
		previous = value;
	});
	for (const index of order) {
		const id = ids[index];
		if (hexIds) {
			for (let i = 0; i < 24; i += 2)
				writer.push((hexDigit(id.charCodeAt(i)) << 4) | hexDigit(id.charCodeAt(i + 1)));
		} else {
			writer.varint(id.length);
			for (let i = 0; i < id.length; i++) writer.varint(id.charCodeAt(i));
		}
	}
	return { unit, count: ids.length, data: toBase64(writer.result()) };
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
			for (let i = 0; i < 12; i++) id += HEX_BYTES[reader.byte()];
		} else {
			const length = reader.varint();
			for (let i = 0; i < length; i++) id += String.fromCharCode(reader.varint());
		}
		memory.set(id, instant);
	}
	return memory;
}

/**
 * The memory of one poll: unpacked only when a record is looked up (a poll that reads nothing
 * costs nothing) and packed again only when something changed.
 */
export class RecordMemory {
	private map?: Map<string, number>;
	private changed = false;

	constructor(
		private packed: PackedMemory | undefined,
		private readonly unit: MemoryUnit,
	) {}

	private entries(): Map<string, number> {
		this.map ??= this.packed ? unpackMemory(this.packed) : new Map();
		return this.map;
	}

	get(id: string): number | undefined {
		return this.entries().get(id);
	}

	set(id: string, instant: number): void {
		if (this.entries().get(id) === instant) return;
		this.map!.set(id, instant);
		this.changed = true;
	}

	delete(id: string): void {
		if (this.entries().delete(id)) this.changed = true;
	}

	/** Forgets every record whose instant is before `instant`. */
	forgetBefore(instant: number): void {
		for (const [id, value] of this.entries()) if (value < instant) this.delete(id);
	}

	pack(): PackedMemory {
		if (!this.changed && this.packed?.unit === this.unit) return this.packed;
		this.packed = packMemory(this.entries(), this.unit);
		this.changed = false;
		return this.packed;
	}
}
