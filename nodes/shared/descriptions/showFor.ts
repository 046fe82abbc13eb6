import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/** Adds `show` conditions to every property, keeping the conditions they already have. */
export function showWhen(
	conditions: NonNullable<IDisplayOptions['show']>,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, ...conditions },
		},
	}));
}

/** Shows properties only for the given operations (one operation file's description). */
export const showFor = (operations: string[], properties: INodeProperties[]) =>
	showWhen({ operation: operations }, properties);
