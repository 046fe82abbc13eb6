/**
 * What the trigger remembers per record, kept small enough for n8n's static data and cheap to
 * change: a map from record id to one instant (a watched value, a modification time, a reminder).
 *
 * Records are spread over 1,024 buckets by a hash of their id, and each bucket is packed into a
 * text of its own, so a poll that sees k records unpacks and packs at most k buckets, whatever the
 * fleet's size, and a poll that changes nothing writes nothing. In a bucket, entries are sorted by
 * instant and stored as differences, Rice-coded in the bucket's coarsest exact unit (whole
 * seconds cost 10 bits less than milliseconds; the instants of a bulk sync a few bits each), and
 * an id is kept as 40 more bits of its hash: about 7 to 9 bytes per record, written as Z85 text
 * (5 characters per 4 bytes, JSON-safe). Two ids share a bucket and fingerprint with a chance of
 * about 1 in 2^50 per pair (one pair in 2,000 fleets of a million records); such a pair would
 * share one remembered value, so an edit of one could be emitted as a change.
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
/** Bucket format: varint differences, base64 text (read, and rewritten when the bucket changes). */
const FINGERPRINTS = 3;
/** Bucket format: Rice-coded differences in the bucket's unit, Z85 text. */
const RICE = 4;
const FINGERPRINT_BYTES = 5;
const FINGERPRINT_BITS = FINGERPRINT_BYTES * 8;
/** The units a bucket's instants may be counted in (when every one of them is a whole number of it). */
const BUCKET_UNITS = [86_400_000, 3_600_000, 60_000, 1_000, 1];
/** A difference whose Rice quotient reaches this is written with its length instead. */
const RICE_ESCAPE = 16;
/** Bits that hold a length of up to 53 bits. */
const LENGTH_BITS = 6;

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

/** Bits written one field at a time, most significant first, into whole bytes (zeros pad the last). */
class BitWriter {
	private pending = 0;
	private held = 0;

	constructor(private readonly bytes: ByteWriter) {}

	/** `value` (a whole number below 2^count, count up to 53) in `count` bits. */
	bits(value: number, count: number): void {
		while (count > 24) {
			const scale = 2 ** (count - 24);
			const high = Math.floor(value / scale);
			this.few(high, 24);
			value -= high * scale;
			count -= 24;
		}
		this.few(value, count);
	}

	/** Up to 24 bits: with at most 7 held, they fit 31-bit integer arithmetic. */
	private few(value: number, count: number): void {
		this.held = (this.held << count) | value;
		this.pending += count;
		while (this.pending >= 8) {
			this.pending -= 8;
			this.bytes.push((this.held >>> this.pending) & 0xff);
		}
		this.held &= (1 << this.pending) - 1;
	}

	flush(): void {
		if (this.pending) this.few(0, 8 - this.pending);
	}
}

class BitReader {
	private pending = 0;
	private held = 0;

	constructor(private readonly bytes: ByteReader) {}

	bits(count: number): number {
		let value = 0;
		while (count > 24) {
			value = value * 2 ** 24 + this.few(24);
			count -= 24;
		}
		return value * 2 ** count + this.few(count);
	}

	private few(count: number): number {
		while (this.pending < count) {
			this.held = ((this.held << 8) | this.bytes.byte()) & 0x7fffffff;
			this.pending += 8;
		}
		this.pending -= count;
		return (this.held >>> this.pending) & ((1 << count) - 1);
	}
}

const bitLength = (value: number): number => (value === 0 ? 0 : Math.floor(Math.log2(value)) + 1);

/** The Rice parameter that writes `gaps` in the fewest bits (near the log of their mean). */
function riceParameter(gaps: readonly number[]): number {
	if (!gaps.length) return 0;
	const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
	const near = Math.max(0, bitLength(Math.floor(mean)) - 1);
	let best = near;
	let bestCost = Infinity;
	for (let k = Math.max(0, near - 3); k <= Math.min(52, near + 3); k++) {
		const scale = 2 ** k;
		let cost = 0;
		for (const gap of gaps) {
			const quotient = Math.floor(gap / scale);
			cost +=
				quotient < RICE_ESCAPE ? quotient + 1 + k : RICE_ESCAPE + LENGTH_BITS + bitLength(gap);
		}
		if (cost < bestCost) [best, bestCost] = [k, cost];
	}
	return best;
}

function writeRice(writer: BitWriter, gap: number, k: number): void {
	const scale = 2 ** k;
	const quotient = Math.floor(gap / scale);
	if (quotient < RICE_ESCAPE && quotient + 1 + k <= 53) {
		// quotient ones, a zero, then the remainder in k bits
		writer.bits((2 ** (quotient + 1) - 2) * scale + (gap - quotient * scale), quotient + 1 + k);
	} else if (quotient < RICE_ESCAPE) {
		writer.bits(2 ** (quotient + 1) - 2, quotient + 1);
		writer.bits(gap - quotient * scale, k);
	} else {
		writer.bits(2 ** RICE_ESCAPE - 1, RICE_ESCAPE);
		writer.bits(bitLength(gap), LENGTH_BITS);
		writer.bits(gap, bitLength(gap));
	}
}

function readRice(reader: BitReader, k: number): number {
	let quotient = 0;
	while (quotient < RICE_ESCAPE && reader.bits(1) === 1) quotient++;
	if (quotient < RICE_ESCAPE) return quotient * 2 ** k + reader.bits(k);
	return reader.bits(reader.bits(LENGTH_BITS));
}

/** Z85 (ZeroMQ's base 85): 5 characters per 4 bytes, none of them a quote or a backslash. */
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const Z85_CODES = [...Z85].map((char) => char.charCodeAt(0));
const Z85_VALUES = new Uint8Array(128).fill(255);
[...Z85].forEach((char, index) => (Z85_VALUES[char.charCodeAt(0)] = index));

/** Bytes as Z85, zeros added to a multiple of 4 (a reader knows from the content where it ends). */
function toZ85(bytes: Uint8Array): string {
	const parts: string[] = [];
	const codes = new Array<number>(CHUNK);
	let used = 0;
	for (let at = 0; at < bytes.length; at += 4) {
		let value =
			bytes[at] * 2 ** 24 +
			((bytes[at + 1] ?? 0) << 16) +
			((bytes[at + 2] ?? 0) << 8) +
			(bytes[at + 3] ?? 0);
		for (let i = 4; i >= 0; i--) {
			const rest = Math.floor(value / 85);
			codes[used + i] = Z85_CODES[value - rest * 85];
			value = rest;
		}
		used += 5;
		if (used + 5 > CHUNK || at + 4 >= bytes.length) {
			parts.push(String.fromCharCode(...codes.slice(0, used)));
			used = 0;
		}
	}
	return parts.join('');
}

function fromZ85(text: string): Uint8Array {
	if (text.length % 5) throw new Error('the remembered records are not readable');
	const bytes = new Uint8Array((text.length / 5) * 4);
	for (let at = 0, to = 0; at < text.length; at += 5, to += 4) {
		let value = 0;
		for (let i = 0; i < 5; i++) {
			const code = text.charCodeAt(at + i);
			const digit = code < 128 ? Z85_VALUES[code] : 255;
			if (digit === 255) throw new Error('the remembered records are not readable');
			value = value * 85 + digit;
		}
		if (value >= 2 ** 32) throw new Error('the remembered records are not readable');
		bytes[to] = Math.floor(value / 2 ** 24);
		bytes[to + 1] = (value >>> 16) & 0xff;
		bytes[to + 2] = (value >>> 8) & 0xff;
		bytes[to + 3] = value & 0xff;
	}
	return bytes;
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

/**
 * Packs one bucket: fingerprint → instant (milliseconds; whole days when the unit is days). The
 * format byte, the count, the bucket's unit (an index into BUCKET_UNITS), the Rice parameter and
 * the first instant as bytes; then as bits the other instants' differences and the fingerprints.
 */
function packBucket(entries: ReadonlyMap<number, number>, unit: MemoryUnit): string {
	const scale = UNIT_MS[unit];
	const keys = [...entries.keys()];
	const exact = keys.map((key) => Math.round(entries.get(key)! / scale));
	const unitIndex = BUCKET_UNITS.findIndex((size) => exact.every((value) => value % size === 0));
	const values = exact.map((value) => value / BUCKET_UNITS[unitIndex]);
	// by instant, then fingerprint: the same bucket always packs to the same text
	const order = keys
		.map((_, index) => index)
		.sort((a, b) => values[a] - values[b] || keys[a] - keys[b]);
	const gaps = order.slice(1).map((index, position) => values[index] - values[order[position]]);
	const k = riceParameter(gaps);
	const bytes = new ByteWriter(new Uint8Array(16 + keys.length * 9));
	bytes.push(RICE);
	bytes.varint(keys.length);
	bytes.push(unitIndex);
	bytes.push(k);
	if (keys.length) bytes.varint(zigzag(values[order[0]]));
	const bits = new BitWriter(bytes);
	for (const gap of gaps) writeRice(bits, gap, k);
	for (const index of order) bits.bits(keys[index], FINGERPRINT_BITS);
	bits.flush();
	return toZ85(bytes.result());
}

/** The entries `packBucket` packed (or its base64 format before); throws for any other text. */
function unpackBucket(text: string, unit: MemoryUnit): Map<number, number> {
	// base64 of the earlier format's first byte (3) begins with 'A'; Z85 of this one's (4) with '1'
	if (text.startsWith('A')) return unpackVarintBucket(text, unit);
	const bytes = new ByteReader(fromZ85(text));
	if (bytes.byte() !== RICE) throw new Error('the remembered records are not readable');
	const count = bytes.varint();
	const bucketUnit = BUCKET_UNITS[bytes.byte()];
	const k = bytes.byte();
	if (bucketUnit === undefined || k > 52)
		throw new Error('the remembered records are not readable');
	const scale = bucketUnit * UNIT_MS[unit];
	const values: number[] = [];
	if (count) values.push(unzigzag(bytes.varint()));
	const bits = new BitReader(bytes);
	for (let index = 1; index < count; index++) values.push(values[index - 1] + readRice(bits, k));
	const entries = new Map<number, number>();
	for (const value of values) entries.set(bits.bits(FINGERPRINT_BITS), value * scale);
	return entries;
}

/** A bucket in the format before RICE: varint differences and 5-byte fingerprints, base64. */
function unpackVarintBucket(text: string, unit: MemoryUnit): Map<number, number> {
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

	/** How many records are remembered. */
	get size(): number {
		return this.count;
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
