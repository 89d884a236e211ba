/**
 * Type tests: every public resource type is written out as an interface (or an alias), and the
 * schema that checks it at run time must infer exactly that type, so the two never drift apart.
 * Parameter types are also compared with what their schema accepts (`z.input`). Compiled by
 * vitest's typecheck (and `npm run typecheck`), never run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import type {
  AuditEntry,
  AuditListParams,
  Invitation,
  InvitationCreateParams,
  InvitationListParams,
  ListParams,
  Organization,
  OrgMember,
  OrgMemberListParams,
  OrgMemberUpdateParams,
  Secret,
  SecretCreateParams,
  SecretListParams,
  SecretUpdateParams,
  SecretValue,
  SecretWithValue,
  Team,
  TeamCreateParams,
  TeamListParams,
  TeamMember,
  TeamMemberCreateParams,
  TeamMemberListParams,
  TeamUpdateParams,
  User,
  Vault,
  VaultCreateParams,
  VaultListParams,
  VaultMember,
  VaultMemberCreateParams,
  VaultMemberListParams,
  VaultMemberUpdateParams,
  VaultMemberUpdateResponse,
  VaultRole,
  VaultUpdateParams,
} from '../src/index.js';

describe('shared types', () => {
  it('infers each shared schema as its written type', () => {
    expectTypeOf<z.infer<typeof User>>().toEqualTypeOf<User>();
    expectTypeOf<z.infer<typeof VaultRole>>().toEqualTypeOf<VaultRole>();
    expectTypeOf<z.infer<typeof ListParams>>().toEqualTypeOf<ListParams>();
    expectTypeOf<z.input<typeof ListParams>>().toEqualTypeOf<ListParams>();
  });
});

describe('vault types', () => {
  it('infers each response schema as its written type', () => {
    expectTypeOf<z.infer<typeof Vault>>().toEqualTypeOf<Vault>();
    expectTypeOf<z.infer<typeof VaultMember>>().toEqualTypeOf<VaultMember>();
    expectTypeOf<
      z.infer<typeof VaultMemberUpdateResponse>
    >().toEqualTypeOf<VaultMemberUpdateResponse>();
  });

  it('infers and accepts each parameter schema as its written type', () => {
    expectTypeOf<z.infer<typeof VaultCreateParams>>().toEqualTypeOf<VaultCreateParams>();
    expectTypeOf<z.input<typeof VaultCreateParams>>().toEqualTypeOf<VaultCreateParams>();
    expectTypeOf<z.infer<typeof VaultUpdateParams>>().toEqualTypeOf<VaultUpdateParams>();
    expectTypeOf<z.input<typeof VaultUpdateParams>>().toEqualTypeOf<VaultUpdateParams>();
    expectTypeOf<z.infer<typeof VaultListParams>>().toEqualTypeOf<VaultListParams>();
    expectTypeOf<z.input<typeof VaultListParams>>().toEqualTypeOf<VaultListParams>();
    expectTypeOf<
      z.infer<typeof VaultMemberCreateParams>
    >().toEqualTypeOf<VaultMemberCreateParams>();
    expectTypeOf<
      z.input<typeof VaultMemberCreateParams>
    >().toEqualTypeOf<VaultMemberCreateParams>();
    expectTypeOf<
      z.infer<typeof VaultMemberUpdateParams>
    >().toEqualTypeOf<VaultMemberUpdateParams>();
    expectTypeOf<
      z.input<typeof VaultMemberUpdateParams>
    >().toEqualTypeOf<VaultMemberUpdateParams>();
    expectTypeOf<z.infer<typeof VaultMemberListParams>>().toEqualTypeOf<VaultMemberListParams>();
    expectTypeOf<z.input<typeof VaultMemberListParams>>().toEqualTypeOf<VaultMemberListParams>();
  });
});

describe('secret types', () => {
  it('infers each response schema as its written type', () => {
    expectTypeOf<z.infer<typeof Secret>>().toEqualTypeOf<Secret>();
    expectTypeOf<z.infer<typeof SecretValue>>().toEqualTypeOf<SecretValue>();
    expectTypeOf<z.input<typeof SecretValue>>().toEqualTypeOf<SecretValue>();
    expectTypeOf<z.infer<typeof SecretWithValue>>().toEqualTypeOf<SecretWithValue>();
  });

  it('infers and accepts each parameter schema as its written type', () => {
    expectTypeOf<z.infer<typeof SecretCreateParams>>().toEqualTypeOf<SecretCreateParams>();
    expectTypeOf<z.input<typeof SecretCreateParams>>().toEqualTypeOf<SecretCreateParams>();
    expectTypeOf<z.infer<typeof SecretUpdateParams>>().toEqualTypeOf<SecretUpdateParams>();
    expectTypeOf<z.input<typeof SecretUpdateParams>>().toEqualTypeOf<SecretUpdateParams>();
    expectTypeOf<z.infer<typeof SecretListParams>>().toEqualTypeOf<SecretListParams>();
    expectTypeOf<z.input<typeof SecretListParams>>().toEqualTypeOf<SecretListParams>();
  });
});

describe('team types', () => {
  it('infers each response schema as its written type', () => {
    expectTypeOf<z.infer<typeof Team>>().toEqualTypeOf<Team>();
    expectTypeOf<z.infer<typeof TeamMember>>().toEqualTypeOf<TeamMember>();
  });

  it('infers and accepts each parameter schema as its written type', () => {
    expectTypeOf<z.infer<typeof TeamCreateParams>>().toEqualTypeOf<TeamCreateParams>();
    expectTypeOf<z.input<typeof TeamCreateParams>>().toEqualTypeOf<TeamCreateParams>();
    expectTypeOf<z.infer<typeof TeamUpdateParams>>().toEqualTypeOf<TeamUpdateParams>();
    expectTypeOf<z.input<typeof TeamUpdateParams>>().toEqualTypeOf<TeamUpdateParams>();
    expectTypeOf<z.infer<typeof TeamListParams>>().toEqualTypeOf<TeamListParams>();
    expectTypeOf<z.input<typeof TeamListParams>>().toEqualTypeOf<TeamListParams>();
    expectTypeOf<z.infer<typeof TeamMemberCreateParams>>().toEqualTypeOf<TeamMemberCreateParams>();
    expectTypeOf<z.input<typeof TeamMemberCreateParams>>().toEqualTypeOf<TeamMemberCreateParams>();
    expectTypeOf<z.infer<typeof TeamMemberListParams>>().toEqualTypeOf<TeamMemberListParams>();
    expectTypeOf<z.input<typeof TeamMemberListParams>>().toEqualTypeOf<TeamMemberListParams>();
  });
});

describe('organization types', () => {
  it('infers each response schema as its written type', () => {
    expectTypeOf<z.infer<typeof Organization>>().toEqualTypeOf<Organization>();
    expectTypeOf<z.infer<typeof OrgMember>>().toEqualTypeOf<OrgMember>();
    expectTypeOf<z.infer<typeof Invitation>>().toEqualTypeOf<Invitation>();
  });

  it('infers and accepts each parameter schema as its written type', () => {
    expectTypeOf<z.infer<typeof OrgMemberUpdateParams>>().toEqualTypeOf<OrgMemberUpdateParams>();
    expectTypeOf<z.input<typeof OrgMemberUpdateParams>>().toEqualTypeOf<OrgMemberUpdateParams>();
    expectTypeOf<z.infer<typeof OrgMemberListParams>>().toEqualTypeOf<OrgMemberListParams>();
    expectTypeOf<z.input<typeof OrgMemberListParams>>().toEqualTypeOf<OrgMemberListParams>();
    expectTypeOf<z.infer<typeof InvitationCreateParams>>().toEqualTypeOf<InvitationCreateParams>();
    expectTypeOf<z.input<typeof InvitationCreateParams>>().toEqualTypeOf<InvitationCreateParams>();
    expectTypeOf<z.infer<typeof InvitationListParams>>().toEqualTypeOf<InvitationListParams>();
    expectTypeOf<z.input<typeof InvitationListParams>>().toEqualTypeOf<InvitationListParams>();
  });
});

describe('audit types', () => {
  it('infers each response schema as its written type', () => {
    expectTypeOf<z.infer<typeof AuditEntry>>().toEqualTypeOf<AuditEntry>();
  });

  it('infers and accepts each parameter schema as its written type', () => {
    expectTypeOf<z.infer<typeof AuditListParams>>().toEqualTypeOf<AuditListParams>();
    expectTypeOf<z.input<typeof AuditListParams>>().toEqualTypeOf<AuditListParams>();
  });
});
