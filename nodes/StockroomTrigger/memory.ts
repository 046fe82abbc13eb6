/**
 * What the trigger remembers per record, kept small enough for n8n's static data and cheap to
 * change: a map from record id to one instant (a watched value, a modification time, a reminder).
 *
 * Records are spread over 1,024 buckets by a hash of their id, and each bucket is packed into a
 * text of its own, so a poll that sees k records unpacks and packs at most k buckets, whatever the
 * fleet's size, and a poll that changes nothing writes nothing. In a bucket, entries are sorted by
 * instant and stored as differences (the instants of a bulk sync cost a byte or two each), and an
 * id is kept as 40 more bits of its hash (5 bytes): about 9 characters per record in all. Two ids
 * share a bucket and fingerprint with a chance of about 1 in 2^50 per pair (one pair in 2,000
 * fleets of a million records); such a pair would share one remembered value, so an edit of one
 * could be emitted as a change.
 */

/** Instants are counted in this unit: milliseconds for date-times, days for calendar dates. */
export type MemoryUnit = 'ms' | 'day';

export interface PackedMemory {
	unit: MemoryUnit;
	/** How many records; also lets a reader of the static data see the size at a glance. */
	count: number;
	/** The packed entries of each bucket that has any, by bucket number. */
	buckets?: Record<string, string>;
	/** The format before buckets (every record with its exact id, in one text): read, then rewritten. */
	data?: string;
}

const BUCKET_BITS = 10;
const FINGERPRINTS = 3;
const FINGERPRINT_BYTES = 5;

export const UNIT_MS: Record<MemoryUnit, number> = { ms: 1, day: 86_400_000 };
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
/** Text is built in pieces of about this length and joined once. */
const CHUNK = 16_384;

export class ByteWriter {
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

export class ByteReader {
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

export const zigzag = (value: number): number => (value >= 0 ? value * 2 : -value * 2 - 1);
export const unzigzag = (value: number): number => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

export function toBase64(bytes: Uint8Array): string {
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

export function fromBase64(text: string): Uint8Array {
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

/** A count, then instants sorted and written as the first and the differences, in the unit; as ms. */
function readInstants(reader: ByteReader, scale: number): number[] {
	const count = reader.varint();
	const instants: number[] = [];
	let value = 0;
	for (let index = 0; index < count; index++) {
		value = index === 0 ? unzigzag(reader.varint()) : value + reader.varint();
		instants.push(value * scale);
	}
	return instants;
}

/** A memory in the format before buckets (exact ids, one text): id → instant. */
function readExactMemory(data: string, unit: MemoryUnit): Map<string, number> {
	const reader = new ByteReader(fromBase64(data));
	const format = reader.byte();
	if (format !== HEX_IDS && format !== TEXT_IDS)
		throw new Error('the remembered records are not readable');
	const instants = readInstants(reader, UNIT_MS[unit]);
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

/** Where a record is remembered: its bucket and, in it, the fingerprint that stands for its id. */
export interface MemoryKey {
	bucket: number;
	fingerprint: number;
}

/**
 * The bucket and fingerprint of an id: 50 bits of cyrb53 (a public-domain 53-bit string hash
 * built on Math.imul), 10 for the bucket and 40 for the fingerprint.
 */
export function fingerprintOf(id: string): MemoryKey {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < id.length; i++) {
		const code = id.charCodeAt(i);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return {
		bucket: (h2 >>> 8) & ((1 << BUCKET_BITS) - 1),
		fingerprint: (h2 & 0xff) * 2 ** 32 + (h1 >>> 0),
	};
}

/** Packs one bucket: fingerprint → instant (milliseconds; whole days when the unit is days). */
function packBucket(entries: ReadonlyMap<number, number>, unit: MemoryUnit): string {
	const scale = UNIT_MS[unit];
	const keys = [...entries.keys()];
	const values = keys.map((key) => Math.round(entries.get(key)! / scale));
	// by instant, then fingerprint: the same bucket always packs to the same text
	const order = keys
		.map((_, index) => index)
		.sort((a, b) => values[a] - values[b] || keys[a] - keys[b]);
	const writer = new ByteWriter(new Uint8Array(8 + keys.length * 8));
	writer.push(FINGERPRINTS);
	writer.varint(keys.length);
	let previous = 0;
	order.forEach((index, position) => {
		writer.varint(position === 0 ? zigzag(values[index]) : values[index] - previous);
		previous = values[index];
	});
	for (const index of order) {
		let rest = keys[index];
		for (let i = 0; i < FINGERPRINT_BYTES; i++) {
			writer.push(rest % 256);
			rest = Math.floor(rest / 256);
		}
	}
	return toBase64(writer.result());
}

/** The entries `packBucket` packed; throws when the text was not written by it. */
function unpackBucket(text: string, unit: MemoryUnit): Map<number, number> {
	const reader = new ByteReader(fromBase64(text));
	if (reader.byte() !== FINGERPRINTS) throw new Error('the remembered records are not readable');
	const instants = readInstants(reader, UNIT_MS[unit]);
	const entries = new Map<number, number>();
	for (const instant of instants) {
		let fingerprint = 0;
		for (let i = 0, scaleBy = 1; i < FINGERPRINT_BYTES; i++, scaleBy *= 256)
			fingerprint += reader.byte() * scaleBy;
		entries.set(fingerprint, instant);
	}
	return entries;
}

/**
 * The memory of one poll: buckets are unpacked only when a record in them is looked up (a poll
 * that reads nothing costs nothing) and packed again only when something in them changed.
 */
export class RecordMemory {
	private readonly open = new Map<number, Map<number, number>>();
	private readonly dirty = new Set<number>();
	private packed: PackedMemory;
	private count: number;

	constructor(
		packed: PackedMemory | undefined,
		private readonly unit: MemoryUnit,
	) {
		this.packed = packed?.buckets ? packed : { unit, count: 0, buckets: {} };
		this.count = this.packed.count;
		// an earlier format or unit: every record is read once and written again in this one
		if (packed?.data !== undefined) {
			for (const [id, instant] of readExactMemory(packed.data, packed.unit)) this.set(id, instant);
		} else if (packed && packed.unit !== unit) {
			for (const bucket of Object.keys(this.packed.buckets!)) this.dirty.add(Number(bucket));
		}
	}

	private bucket(index: number): Map<number, number> {
		let entries = this.open.get(index);
		if (!entries) {
			const text = this.packed.buckets?.[index];
			entries = text ? unpackBucket(text, this.packed.unit) : new Map();
			this.open.set(index, entries);
		}
		return entries;
	}

	get(id: string): number | undefined {
		const { bucket, fingerprint } = fingerprintOf(id);
		return this.bucket(bucket).get(fingerprint);
	}

	set(id: string, instant: number): void {
		const { bucket, fingerprint } = fingerprintOf(id);
		const entries = this.bucket(bucket);
		const known = entries.get(fingerprint);
		if (known === instant) return;
		if (known === undefined) this.count++;
		entries.set(fingerprint, instant);
		this.dirty.add(bucket);
	}

	delete(id: string): void {
		this.forget(fingerprintOf(id));
	}

	/** Every remembered key (unpacks every bucket once, keeping none of them open). */
	forEachKey(visit: (key: MemoryKey) => void): void {
		const indexes = new Set([
			...Object.keys(this.packed.buckets ?? {}).map(Number),
			...this.open.keys(),
		]);
		for (const bucket of indexes) {
			const text = this.packed.buckets?.[bucket];
			const entries =
				this.open.get(bucket) ?? (text ? unpackBucket(text, this.packed.unit) : new Map());
			for (const fingerprint of entries.keys()) visit({ bucket, fingerprint });
		}
	}

	/** Forgets the record remembered under `key`, if any. */
	forget({ bucket, fingerprint }: MemoryKey): void {
		if (!this.bucket(bucket).delete(fingerprint)) return;
		this.count--;
		this.dirty.add(bucket);
	}

	/** Forgets every record whose instant is before `instant` (reads every bucket). */
	forgetBefore(instant: number): void {
		for (const bucket of Object.keys(this.packed.buckets ?? {}).map(Number)) {
			const entries = this.bucket(bucket);
			for (const [fingerprint, value] of entries) {
				if (value >= instant) continue;
				entries.delete(fingerprint);
				this.count--;
				this.dirty.add(bucket);
			}
		}
	}

	/** The memory to store: the same object when nothing changed, else only changed buckets repacked. */
	pack(): PackedMemory {
		if (!this.dirty.size && this.packed.unit === this.unit) return this.packed;
		const buckets = { ...this.packed.buckets };
		for (const index of this.dirty) {
			const entries = this.bucket(index);
			if (entries.size) buckets[index] = packBucket(entries, this.unit);
			else delete buckets[index];
		}
		this.dirty.clear();
		this.packed = { unit: this.unit, count: this.count, buckets };
		return this.packed;
	}
}
