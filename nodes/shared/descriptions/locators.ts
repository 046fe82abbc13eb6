import type { INodeProperties, INodePropertyMode } from 'n8n-workflow';

export interface LocatorOptions {
	/** Label and parameter name, e.g. "Asset" → parameter `asset`. */
	noun: string;
	searchListMethod: string;
	/** Hex digits in the service's IDs of this record: an ID of another form is refused. */
	idLength?: number;
	/**
	 * For records whose IDs the server chooses (SCIM users: any string, RFC 7643 §3.1): what the
	 * By ID field says of them, instead of a pattern it checks.
	 */
	idHint?: string;
	idPlaceholder: string;
	/** Offer "By External ID" with this placeholder (for records that have one). */
	externalIdPlaceholder?: string;
	/** Offer "By Email" with this placeholder (people, whom records name by e-mail address). */
	emailPlaceholder?: string;
}

/** The service's record ID pattern (hex digits of a given length). */
export const idPattern = (length: number) => `^[0-9a-fA-F]{${length}}$`;

/** Picks one record: from a searchable list, by ID, or (where records have one) by External ID. */
export function recordLocator(options: LocatorOptions): INodeProperties {
	const errorMessage = `A ${options.noun.toLowerCase()} ID is ${options.idLength} hexadecimal characters`;
	const idCheck: Partial<INodePropertyMode> =
		options.idLength === undefined
			? { hint: options.idHint }
			: {
					validation: [
						{
							type: 'regex',
							properties: { regex: idPattern(options.idLength), errorMessage },
						},
					],
				};
	const locator: INodeProperties = {
		displayName: options.noun,
		name: options.noun.toLowerCase(),
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: {
					searchListMethod: options.searchListMethod,
					searchable: true,
					searchFilterRequired: false,
				},
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: options.idPlaceholder,
				...idCheck,
			},
			{
				displayName: 'By External ID',
				name: 'externalId',
				type: 'string',
				placeholder: options.externalIdPlaceholder,
			},
			{
				displayName: 'By Email',
				name: 'email',
				type: 'string',
				placeholder: options.emailPlaceholder,
				validation: [
					{
						type: 'regex',
						properties: { regex: '^[^@\\s]+@[^@\\s]+$', errorMessage: 'Not an e-mail address' },
					},
				],
			},
		],
	};
	locator.modes = locator.modes?.filter(
		(mode) =>
			(mode.name !== 'externalId' || options.externalIdPlaceholder) &&
			(mode.name !== 'email' || options.emailPlaceholder),
	);
	return locator;
}
