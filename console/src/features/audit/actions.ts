/** Console actions (the audit entries' `detail.action`) as an operator reads them; unknown ones show their code. */
const ACTION_LABELS: Record<string, string> = {
  'auth.login': 'Signed in',
  'auth.logout': 'Signed out',
  'key.create': 'Key issued',
  'key.update': 'Key edited',
  'key.rotate': 'Secret rotated',
  'key.revoke': 'Key revoked',
  'tenant.create': 'Clinic created',
  'tenant.settings.update': 'Clinic settings saved',
  'tenant.reset': 'Clinic reset',
  'tenant.clone': 'Clinic cloned',
  'tenant.drop': 'Clinic dropped',
  'journal.prune': 'Journal pruned',
  'fault.create': 'Backend fault on',
  'fault.delete': 'Backend fault off',
  'fault.clear': 'All backend faults off',
  'storage_fault.create': 'Storage fault on',
  'storage_fault.delete': 'Storage fault off',
  'storage_fault.clear': 'All storage faults off',
  'clock.set': 'Clock moved',
  'clock.reset': 'Clock back to real time',
  'operator_token.create': 'Operator token issued',
  'operator_token.revoke': 'Operator token revoked',
  'operator_token.delete': 'Operator token removed',
  'idempotency.purge': 'Idempotency entry purged',
  'operator.create': 'Operator added',
  'operator.update': 'Operator changed',
  'operator.password.change': 'Own password changed',
  'operator.password.reset': 'Operator password reset',
};

export const actionLabel = (action: string | null | undefined): string =>
  action ? (ACTION_LABELS[action] ?? action) : 'Console action';
