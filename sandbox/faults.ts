import { problem, serverFault, type Reply } from './problems';
import { Random } from './random';

/**
 * `reset` drops the connection before answering; `cut` answers (the call takes effect) but drops
 * the connection half-way through the body (before any answer when there is no body); `slow`
 * answers after a pause; `hang` never answers, until the client gives up.
 *
 * Answers that are not the service's, as a gateway or proxy in front of it gives them, all with
 * status 200: `maintenance` (an HTML maintenance page; the call never reached the service),
 * `shape` (JSON of another shape; never reached it either) and `truncated` (the call takes
 * effect, and its JSON answer arrives whole as HTTP goes but cut short as JSON).
 *
 * Answers the service's own spec allows, or a gateway makes of a list, well-formed JSON all
 * (see reshape.ts): `empty` (a list page with no records and a `next` link to the same place),
 * `short` (half a list page, `next` after its last record), `unordered` (a list page's records
 * in descending id order), `cutoff` (`{"results": []}` without `next` where the list goes on, as
 * a gateway may answer), `null-next` (a last list page with `"next": null`) and `dates` (dates and
 * date-times of the records written in other ISO 8601 forms of the same day or instant). The list
 * kinds leave any other answer as it is.
 */
export const FAULT_KINDS = [
	'429',
	'500',
	'502',
	'503',
	'504',
	'reset',
	'cut',
	'slow',
	'hang',
	'maintenance',
	'shape',
	'truncated',
	'empty',
	'short',
	'unordered',
	'cutoff',
	'null-next',
	'dates',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type FaultRates = ReadonlyArray<readonly [FaultKind, number]>;

const isFaultKind = (text: string): text is FaultKind =>
	(FAULT_KINDS as readonly string[]).includes(text);

/** Parses `429:0.1,503:0.05,reset:0.02,slow:0.1`; throws a message naming what is wrong. */
export function parseFaults(spec: string): FaultRates {
	if (spec.trim() === '') return [];
	const rates = spec.split(',').map((part): [FaultKind, number] => {
		const [kind, rateText, ...rest] = part.trim().split(':');
		if (!isFaultKind(kind) || rateText === undefined || rest.length) {
			throw new Error(
				`'${part.trim()}' is not kind:rate with a kind among ${FAULT_KINDS.join(', ')}`,
			);
		}
		const rate = Number(rateText);
		if (rateText.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
			throw new Error(`the rate in '${part.trim()}' must be a number from 0 to 1`);
		}
		return [kind, rate];
	});
	const total = rates.reduce((sum, [, rate]) => sum + rate, 0);
	if (total > 1 + 1e-9) throw new Error(`the fault rates add up to ${total}, more than 1`);
	return rates;
}

/** Decides which API calls fail, from a seeded PRNG, after any forced failures. */
export class FaultInjector {
	private rates: FaultRates = [];
	/** Forced outcomes of the next calls: a fault, or `null` for a call that passes. */
	private readonly forced: Array<FaultKind | null> = [];
	private readonly random: Random;

	constructor(seed: number, spec = '') {
		this.random = new Random(seed ^ 0x5eed);
		this.set(spec);
	}

	set(spec: string | FaultRates): void {
		this.rates = typeof spec === 'string' ? parseFaults(spec) : spec;
	}

	/** After `after` more API calls pass, the next `count` fail with `kind`, before any random fault. */
	failNext(count: number, kind: FaultKind, after = 0): void {
		if (!isFaultKind(kind)) {
			throw new Error(`unknown fault kind '${kind}' (expected ${FAULT_KINDS.join(', ')})`);
		}
		for (let i = 0; i < after; i++) this.forced.push(null);
		for (let i = 0; i < count; i++) this.forced.push(kind);
	}

	clear(): void {
		this.rates = [];
		this.forced.length = 0;
	}

	/** The fault for the next API call, if any. */
	next(): FaultKind | undefined {
		if (this.forced.length) return this.forced.shift() ?? undefined;
		if (this.rates.length === 0) return undefined;
		let draw = this.random.next();
		for (const [kind, rate] of this.rates) {
			if (draw < rate) return kind;
			draw -= rate;
		}
		return undefined;
	}

	/** How long a `slow` call waits, in milliseconds. */
	slowDelay(): number {
		return this.random.int(200, 1000);
	}

	/** One of `values`, drawn from the faults' PRNG (which spelling a `dates` answer uses). */
	pick<T>(values: readonly T[]): T {
		return this.random.pick(values);
	}
}

/** Faults that change how an answer travels rather than what it is. */
export type TransportFault = 'reset' | 'cut' | 'slow' | 'hang' | 'truncated';

/** Faults that change what a successful answer says (see reshape.ts). */
export const RESHAPING_FAULTS = [
	'empty',
	'short',
	'unordered',
	'cutoff',
	'null-next',
	'dates',
] as const;
export type ReshapingFault = (typeof RESHAPING_FAULTS)[number];
export const isReshapingFault = (kind: FaultKind): kind is ReshapingFault =>
	(RESHAPING_FAULTS as readonly string[]).includes(kind);

export const MAINTENANCE_PAGE =
	'<!DOCTYPE html>\n<html><head><title>Down for maintenance</title></head>' +
	'<body><h1>We will be back soon</h1><p>Scheduled maintenance is in progress.</p></body></html>\n';

/** The answer to a call that fails with a status fault or a gateway's answer. */
export function faultReply(kind: Exclude<FaultKind, TransportFault | ReshapingFault>): Reply {
	if (kind === 'maintenance') {
		return { status: 200, rawBody: MAINTENANCE_PAGE, contentType: 'text/html; charset=utf-8' };
	}
	// JSON, status 200, and nothing the service would send
	if (kind === 'shape') return { status: 200, body: { status: 'ok', message: 'Service is up' } };
	if (kind !== '429') return serverFault(Number(kind));
	const detail = 'Rate limit exceeded; retry after 1 second.';
	return problem(429, { detail }, { 'Retry-After': '1' });
}
