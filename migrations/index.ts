import { DeployGateway1795301000000 } from './1795301000000-DeployGateway';
import { EvaluationAuthAndModelConfigs1795305400000 } from './1795305400000-EvaluationAuthAndModelConfigs';

/** Every migration in order. Listed explicitly (no glob) so the same list works under tsc, SWC/Jest and dist. */
export const ALL_MIGRATIONS = [DeployGateway1795301000000, EvaluationAuthAndModelConfigs1795305400000];
