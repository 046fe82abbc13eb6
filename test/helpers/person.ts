import axios from 'axios';
import type { IDataObject } from 'n8n-workflow';
import type { ClientApp } from '../../sandbox/auth';
import type { Sandbox } from '../../sandbox/server';

/**
 * People editing the register between two runs, as the service sees them: another client app
 * (the service desk's tool), over HTTP, so that each edit moves the record's lastModifiedDtm and
 * lastModifiedBy as a real edit does. Register SERVICE_DESK with the sandbox (`clients`).
 */
export const SERVICE_DESK: ClientApp = {
	id: 'service-desk',
	secret: 'service-desk-secret',
	scopes: ['Assets.Read', 'Assets.Write', 'Contracts.Read', 'Contracts.Write'],
};

export function serviceDesk(sandbox: () => Sandbox) {
	const api = () =>
		axios.create({
			baseURL: sandbox().url,
			headers: { Authorization: `Bearer ${sandbox().token(undefined, SERVICE_DESK.id)}` },
		});
	const asset = (externalId: string) => {
		const found = sandbox()
			.store.assets.all()
			.find((record) => record.externalId === externalId);
		if (!found) throw new Error(`no asset ${externalId}`);
		return found;
	};
	const contract = (externalId: string) => {
		const found = sandbox()
			.store.contracts.all()
			.find((record) => record.externalId === externalId);
		if (!found) throw new Error(`no contract ${externalId}`);
		return found;
	};
	return {
		/** Changes some of an asset's fields (null clears one). */
		editAsset: async (externalId: string, patch: IDataObject) =>
			(await api().patch(`/api/assets/v1/${asset(externalId).id}`, patch)).data as IDataObject,
		/** Replaces a contract with what `edit` makes of it as the service returns it. */
		editContract: async (externalId: string, edit: (current: IDataObject) => IDataObject) => {
			const { data } = await api().get(`/api/contracts/v1/${contract(externalId).id}`);
			return (await api().put('/api/contracts/v1', edit(data as IDataObject))).data as IDataObject;
		},
		createAsset: async (body: IDataObject) =>
			(await api().put('/api/assets/v1', body)).data as IDataObject,
		deleteAsset: async (externalId: string) =>
			await api().delete(`/api/assets/v1/${asset(externalId).id}`),
	};
}
