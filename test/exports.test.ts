import { describe, expect, it } from 'vitest';
import * as sdk from '../src/index.js';

describe('the package entry point', () => {
  it('exports the client, the promises, every error class and every resource schema by name', () => {
    expect(Object.keys(sdk).sort()).toEqual(
      [
        'APIConnectionError',
        'APIError',
        'APIPromise',
        'APITimeoutError',
        'APIUserAbortError',
        'Audit',
        'AuditEntry',
        'AuditListParams',
        'AuthenticationError',
        'BadRequestError',
        'ConflictError',
        'createSecretCache',
        'IdempotencyInProgressError',
        'IdempotencyKeyReuseError',
        'InternalServerError',
        'InvalidCursorError',
        'Invitation',
        'InvitationCreateParams',
        'InvitationListParams',
        'Invitations',
        'ListParams',
        'NotFoundError',
        'Org',
        'OrgMember',
        'OrgMemberListParams',
        'OrgMemberUpdateParams',
        'OrgMembers',
        'Organization',
        'Page',
        'PagePromise',
        'PayloadTooLargeError',
        'PermissionDeniedError',
        'RateLimitError',
        'RedirectError',
        'SecretReferenceError',
        'SecretsSchemaError',
        'RequestValidationError',
        'ResponseValidationError',
        'Secret',
        'SecretCreateParams',
        'SecretListParams',
        'SecretUpdateParams',
        'SecretValue',
        'SecretWithValue',
        'Secrets',
        'SecretsVault',
        'SecretsVaultError',
        'Team',
        'TeamCreateParams',
        'TeamListParams',
        'TeamMember',
        'TeamMemberCreateParams',
        'TeamMemberListParams',
        'TeamMembers',
        'TeamUpdateParams',
        'Teams',
        'toEnv',
        'UnprocessableEntityError',
        'User',
        'Vault',
        'VaultCreateParams',
        'VaultListParams',
        'VaultMember',
        'VaultMemberCreateParams',
        'VaultMemberListParams',
        'VaultMemberUpdateParams',
        'VaultMemberUpdateResponse',
        'VaultMembers',
        'VaultRole',
        'VaultUpdateParams',
        'Vaults',
      ].sort(),
    );
  });

  it('gives every error class its own name and the common base SecretsVaultError', () => {
    const init = { status: 400, code: null, message: null, headers: new Headers() };
    const build = (ErrorClass: unknown): Error => {
      if (
        ErrorClass === sdk.APIError ||
        (ErrorClass as { prototype: unknown }).prototype instanceof sdk.APIError
      ) {
        return new (ErrorClass as new (i: typeof init) => Error)(init);
      }
      if (ErrorClass === sdk.ResponseValidationError)
        return new sdk.ResponseValidationError(200, new Headers(), []);
      if (ErrorClass === sdk.RequestValidationError) return new sdk.RequestValidationError([]);
      if (ErrorClass === sdk.SecretsSchemaError) return new sdk.SecretsSchemaError([]);
      if (ErrorClass === sdk.SecretReferenceError)
        return new sdk.SecretReferenceError('vault://x', 'is malformed');
      return new (ErrorClass as new () => Error)();
    };
    const errorClasses = Object.entries(sdk).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
    );
    expect(errorClasses).toHaveLength(22);
    for (const [name, ErrorClass] of errorClasses) {
      const error = build(ErrorClass);
      expect(error.name).toBe(name);
      expect(error).toBeInstanceOf(sdk.SecretsVaultError);
    }
  });
});
