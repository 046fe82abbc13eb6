import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { CONTRACTS_PATH } from '../../shared/resources';
import { applyApprovedPlan, applyPlanProperties } from '../../shared/sync/approved';
import { writePlan } from '../sync/write';
import { contractWords } from './sync.operation';

export const description = applyPlanProperties('contracts');

export async function runAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await applyApprovedPlan(this, {
		resource: 'contract',
		path: CONTRACTS_PATH,
		words: () => contractWords,
		// a new contract's External ID must still be free
		keys: () => ['externalId'],
		write: async (plan, settings) => await writePlan(this, plan, settings),
	});
}
