import { NodeConnectionTypes } from 'n8n-workflow';

/** The oldest n8n whose n8n-workflow has everything the nodes use. */
export const OLDEST_SUPPORTED_N8N = '1.85.0';

/**
 * Called by each node file as it loads. n8n before 1.85 has no `NodeConnectionTypes`: the node's
 * description would fail on `undefined.Main`, a TypeError that n8n reports as "Class could not
 * be found". This says what is wrong instead (a plain Error: n8n passes it on as it is).
 */
export function requireSupportedN8n(): void {
	if (NodeConnectionTypes === undefined) {
		throw new Error(
			`n8n-nodes-stockroom needs n8n ${OLDEST_SUPPORTED_N8N} or later: this n8n's n8n-workflow has no NodeConnectionTypes. Update n8n to use these nodes.`,
		);
	}
}
