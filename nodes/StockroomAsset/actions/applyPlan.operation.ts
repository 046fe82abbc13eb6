import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { ASSETS_PATH } from '../../shared/resources';
import { applyApprovedPlan, applyPlanProperties } from '../../shared/sync/approved';
import type { SyncKey } from '../sync/source';
import { writePlan } from '../sync/write';
import { assetWords } from './sync.operation';

export const description = applyPlanProperties('assets');

export async function runAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await applyApprovedPlan(this, {
		resource: 'asset',
		path: ASSETS_PATH,
		words: (keyField) => assetWords({ key: keyField as SyncKey, customFields: [] }),
		// a new asset's key and External ID must still be free
		keys: (keyField) => [...new Set([keyField, 'externalId'])],
		write: async (plan, settings) => await writePlan(this, plan, settings),
	});
}
