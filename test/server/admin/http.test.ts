import { describe, expect, it } from 'vitest';
import { fromServiceError } from '../../../server/admin/http.ts';
import { ApiError } from '../../../server/errors.ts';
import { KeyServiceError } from '../../../server/keys/keys.service.ts';
import { ServiceError, type ServiceErrorCode } from '../../../server/service-error.ts';
import { TenantServiceError } from '../../../server/tenants/tenants.service.ts';

const mapped = (error: unknown): ApiError => {
  try {
    fromServiceError(error);
  } catch (thrown) {
    return thrown as ApiError;
  }
  throw new Error('fromServiceError returned');
};

describe('fromServiceError: a service refusal becomes the console API error its code names', () => {
  it.each<[ServiceErrorCode, string, number]>([
    ['tenant_not_found', 'RES_NOT_FOUND', 404],
    ['key_not_found', 'RES_NOT_FOUND', 404],
    ['key_revoked', 'INVALID_STATE', 422],
    ['tenant_exists', 'CONFLICT', 422],
    ['invalid_input', 'VAL_INVALID_PARAM', 400],
  ])('%s → %s', (code, apiCode, status) => {
    for (const error of [
      new KeyServiceError(code, 'what the operator reads'),
      new TenantServiceError(code, 'what the operator reads'),
    ]) {
      const api = mapped(error);
      expect(api).toBeInstanceOf(ApiError);
      expect({ code: api.code, status: api.status, message: api.message }).toEqual({
        code: apiCode,
        status,
        message: 'what the operator reads',
      });
    }
  });

  it('reads the code, not the words: a clinic named "revoked" that exists is a conflict, an unknown scope called "revoked" is invalid input', () => {
    expect(mapped(new TenantServiceError('tenant_exists', 'tenant "revoked" already exists')).code).toBe('CONFLICT');
    expect(mapped(new KeyServiceError('invalid_input', 'unknown scope(s): revoked')).code).toBe('VAL_INVALID_PARAM');
    expect(mapped(new ServiceError('tenant_not_found', 'tenant "already-exists" does not exist')).code).toBe(
      'RES_NOT_FOUND',
    );
  });

  it('passes other errors through, and an unopenable clinic database is 503, not a lost session', () => {
    const other = new Error('boom');
    expect(mapped(other)).toBe(other);
    expect(mapped(new ApiError('AUTH_TENANT_OPEN_FAILED', 'x')).code).toBe('SERVICE_UNAVAILABLE');
  });
});
