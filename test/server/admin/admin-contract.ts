import { z } from 'zod';
import { auditDetail, auditPage, auditStorage, unattributedPage } from '../../../contracts/admin/audit.ts';
import { loggedOut, passwordChanged, sessionView } from '../../../contracts/admin/auth.ts';
import { clockState } from '../../../contracts/admin/clock.ts';
import { contractReport } from '../../../contracts/admin/contract.ts';
import { journalPruneResult } from '../../../contracts/admin/journal-prune.ts';
import { removedAll, removedById } from '../../../contracts/admin/common.ts';
import { faultView } from '../../../contracts/admin/faults.ts';
import { receivedAnswer } from '../../../contracts/admin/journal.ts';
import { clinicIdempotency, idempotencyPurged, keyIdempotency } from '../../../contracts/admin/idempotency.ts';
import { issuedKey, keyView } from '../../../contracts/admin/keys.ts';
import {
  issuedOperatorToken,
  operatorTokenRemoved,
  operatorTokenView,
} from '../../../contracts/admin/operator-tokens.ts';
import { operatorView, operatorWithPassword } from '../../../contracts/admin/operators.ts';
import { fullApiKey, playgroundAnswer } from '../../../contracts/admin/playground.ts';
import { alertsAnswer, keyStatsAnswer, statsAnswer } from '../../../contracts/admin/stats.ts';
import { storageFaultView } from '../../../contracts/admin/storage-faults.ts';
import { clonePolicyView, tenantCloned, tenantDropped } from '../../../contracts/admin/clones.ts';
import {
  snapshotDeleted,
  snapshotImportResult,
  snapshotRestoreResult,
  snapshotSaved,
  snapshotView,
} from '../../../contracts/admin/snapshots.ts';
import {
  catalogOption,
  medicoOption,
  tenantCreated,
  tenantResetPolicyView,
  tenantResetResult,
  tenantSettingsView,
  tenantView,
} from '../../../contracts/admin/tenants.ts';

/**
 * Every console API answer the console reads, with the contract it parses it by (console/src/features/*\/api.ts).
 * The test client checks each successful answer against it, so every console API test also proves the
 * gateway answers what the console expects.
 */
const ROUTES: Array<[method: string, path: RegExp, schema: z.ZodType]> = [
  ['POST', /^\/auth\/login$/, sessionView],
  ['GET', /^\/auth\/session$/, sessionView],
  ['POST', /^\/auth\/logout$/, loggedOut],
  ['POST', /^\/auth\/password$/, passwordChanged],
  ['GET', /^\/audit$/, auditPage],
  ['GET', /^\/audit\/unattributed$/, unattributedPage],
  ['GET', /^\/audit\/storage$/, auditStorage],
  ['GET', /^\/audit\/\d+$/, auditDetail],
  ['GET', /^\/clock$/, clockState],
  ['GET', /^\/contract$/, contractReport],
  ['PUT', /^\/clock$/, clockState],
  ['DELETE', /^\/clock$/, clockState],
  ['GET', /^\/faults$/, z.array(faultView)],
  ['POST', /^\/faults$/, faultView],
  ['DELETE', /^\/faults\/\d+$/, removedById],
  ['DELETE', /^\/faults$/, removedAll],
  ['GET', /^\/storage-faults$/, z.array(storageFaultView)],
  ['POST', /^\/storage-faults$/, storageFaultView],
  ['DELETE', /^\/storage-faults\/\d+$/, removedById],
  ['DELETE', /^\/storage-faults$/, removedAll],
  ['GET', /^\/tenants$/, z.array(tenantView)],
  ['POST', /^\/tenants$/, tenantCreated],
  ['GET', /^\/tenants\/[^/]+\/settings$/, tenantSettingsView],
  ['PATCH', /^\/tenants\/[^/]+\/settings$/, tenantSettingsView],
  ['GET', /^\/tenants\/[^/]+\/medicos$/, z.array(medicoOption)],
  ['GET', /^\/tenants\/[^/]+\/(unidades|convenios)$/, z.array(catalogOption)],
  ['GET', /^\/tenant-reset-policy$/, tenantResetPolicyView],
  ['POST', /^\/tenants\/[^/]+\/reset$/, tenantResetResult],
  ['POST', /^\/automation\/tenants\/[^/]+\/reset$/, tenantResetResult],
  ['GET', /^\/ephemeral-clinics-policy$/, clonePolicyView],
  ['POST', /^(\/automation)?\/tenants\/[^/]+\/clone$/, tenantCloned],
  ['DELETE', /^(\/automation)?\/tenants\/[^/]+$/, tenantDropped],
  ['POST', /^\/journal\/prune$/, journalPruneResult],
  ['POST', /^\/automation\/journal\/prune$/, journalPruneResult],
  ['GET', /^(\/automation)?\/tenants\/[^/]+\/keys$/, z.array(keyView)],
  ['POST', /^(\/automation)?\/tenants\/[^/]+\/keys$/, issuedKey],
  ['GET', /^\/keys\/\d+$/, keyView],
  ['PATCH', /^(\/automation)?\/keys\/\d+$/, keyView],
  ['POST', /^(\/automation)?\/keys\/\d+\/rotate$/, issuedKey],
  ['POST', /^(\/automation)?\/keys\/\d+\/revoke$/, keyView],
  ['GET', /^\/keys\/\d+\/api-key$/, fullApiKey],
  ['GET', /^\/keys\/\d+\/idempotency$/, keyIdempotency],
  ['DELETE', /^\/keys\/\d+\/idempotency\/[^/]+$/, idempotencyPurged],
  ['GET', /^\/tenants\/[^/]+\/idempotency$/, clinicIdempotency],
  ['POST', /^\/playground\/send$/, playgroundAnswer],
  ['GET', /^\/operators$/, z.array(operatorView)],
  ['POST', /^\/operators$/, operatorWithPassword],
  ['PATCH', /^\/operators\/\d+$/, operatorView],
  ['POST', /^\/operators\/\d+\/reset-password$/, operatorWithPassword],
  ['GET', /^\/operator-tokens$/, z.array(operatorTokenView)],
  ['POST', /^\/operator-tokens$/, issuedOperatorToken],
  ['POST', /^\/operator-tokens\/\d+\/revoke$/, operatorTokenView],
  ['DELETE', /^\/operator-tokens\/\d+$/, operatorTokenRemoved],
  ['GET', /^\/(automation\/)?tenants\/[^/]+\/journal\/received$/, receivedAnswer],
  // Named snapshots (issue 30), the console routes and their automation twins: same answers.
  ['GET', /^(\/automation)?\/tenants\/[^/]+\/snapshots$/, z.array(snapshotView)],
  ['POST', /^(\/automation)?\/tenants\/[^/]+\/snapshots$/, snapshotSaved],
  ['POST', /^(\/automation)?\/tenants\/[^/]+\/snapshots\/import$/, snapshotImportResult],
  ['POST', /^(\/automation)?\/tenants\/[^/]+\/snapshots\/[^/]+\/restore$/, snapshotRestoreResult],
  ['DELETE', /^(\/automation)?\/tenants\/[^/]+\/snapshots\/[^/]+$/, snapshotDeleted],
  // Traffic charts and alerts (issue 31), the console routes and their automation twins: same answers.
  ['GET', /^(\/automation)?\/tenants\/[^/]+\/stats$/, statsAnswer],
  ['GET', /^(\/automation)?\/tenants\/[^/]+\/stats\/keys$/, keyStatsAnswer],
  ['GET', /^(\/automation)?\/alerts$/, alertsAnswer],
];

/** The contract of a console API answer (`path` below /admin/api, query string included), or null when none is listed. */
export function adminAnswerContract(method: string, path: string): z.ZodType | null {
  const bare = path.split('?')[0];
  return ROUTES.find(([m, pattern]) => m === method.toUpperCase() && pattern.test(bare))?.[2] ?? null;
}

/** Throws, naming the fields, when a successful answer's `data` is not what its contract says. */
export function checkAdminAnswer(method: string, path: string, data: unknown): void {
  const schema = adminAnswerContract(method, path);
  if (!schema) return;
  const result = schema.safeParse(data);
  if (!result.success)
    throw new Error(
      `${method} /admin/api${path}: answer outside its contract (contracts/admin/): ${result.error.message}`,
    );
}
