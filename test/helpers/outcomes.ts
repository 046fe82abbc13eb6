import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

/** The error a run ends with, or a test failure when it does not fail. */
export async function failureOf(
	run: Promise<unknown>,
): Promise<Error & { description?: string; httpCode?: string }> {
	const outcome = await run.then(
		() => undefined,
		(error: Error) => error,
	);
	if (!outcome) throw new Error('expected the run to fail');
	return outcome;
}

/** Every parameter of a node description, however deep in collections it sits. */
export function allParameters(properties: readonly unknown[]): INodeProperties[] {
	const found: INodeProperties[] = [];
	for (const entry of properties as Array<INodeProperties & INodePropertyCollection>) {
		if (entry.type !== undefined) found.push(entry);
		if (Array.isArray(entry.options)) found.push(...allParameters(entry.options));
		if (Array.isArray(entry.values)) found.push(...allParameters(entry.values));
	}
	return found;
}
