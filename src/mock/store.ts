/**
 * The mock's in-memory state: organizations, principals, every resource, the audit log and the
 * idempotency records, with the seed every fresh mock (and every `reset()`) starts from.
 */
// The mock stores what the service shows, so its records are the SDK's own resource types.
import type { AuditEntry } from '../resources/audit.js';
import type { Invitation, Organization, OrgMember } from '../resources/org.js';
import type { Secret } from '../resources/secrets.js';
import type { User, VaultRole } from '../resources/shared.js';
import type { Team, TeamMember } from '../resources/teams.js';
import type { Vault, VaultMember } from '../resources/vaults.js';
import type { MockClock } from './clock.js';
import { createRandomUuid, type RandomUuid } from './ids.js';
import { type SealedValue, ValueSealer } from './sealing.js';

/** An organization role, lowest to highest. */
export type OrgRole = 'member' | 'admin' | 'owner';
/** A vault role, lowest to highest. */
export type VaultRoleName = VaultRole;

export const ORG_ROLES: readonly OrgRole[] = ['member', 'admin', 'owner'];
export const VAULT_ROLES: readonly VaultRoleName[] = ['member', 'editor', 'admin'];

/** A user as the service embeds one. */
export type UserRecord = User;

/** An organization as the service shows it. */
export type OrgRecord = Organization;

/** Who a token speaks for: a user (through their org membership) or an API key. */
export interface PrincipalRecord {
  id: string;
  kind: 'user' | 'api_key';
  orgId: string;
  name: string;
  token: string;
  /** The user behind a user principal. */
  userId?: string;
  /** The org role of an API key (a user's comes from their membership). */
  apiKeyRole?: OrgRole;
}

/** A member of an organization as the service shows it. */
export type OrgMemberRecord = OrgMember;

/** A vault: what the service shows, less `role`, which depends on who asks. */
export type VaultRecord = Omit<Vault, 'role'>;

/** A member of a vault as the service shows it. */
export type VaultMemberRecord = VaultMember;

/** A secret's metadata, and its value sealed with AES-GCM: never stored in the clear. */
export type SecretRecord = Secret & { sealed: SealedValue };

/** A team as the service shows it. */
export type TeamRecord = Team;

/** A member of a team as the service shows it. */
export type TeamMemberRecord = TeamMember;

/** An invitation as the service shows it. */
export type InvitationRecord = Invitation;

/** An audit entry, and the organization it belongs to (which the service does not show). */
export type AuditRecord = AuditEntry & { org_id: string };

/** Where a cursor points: the list it belongs to and the last item of the page before it. */
export interface CursorRecord {
  list: string;
  after: { sortKey: string; id: string };
  expiresAt: number;
}

/** A stored response of an idempotent create, or the marker that its first request still runs. */
export interface IdempotencyRecord {
  state: 'running' | 'done';
  /** The request body as canonical JSON, to tell a replay from a reuse. */
  body: string;
  expiresAt: number;
  response?: { status: number; headers: Array<[string, string]>; body: string };
}

/** A principal seeded by the mock, with the token to send as `Authorization: Bearer <token>`. */
export interface MockPrincipal {
  /** The bearer token of this principal. */
  readonly token: string;
  /** Display name, as the audit log's `user_name` shows it. */
  readonly name: string;
  /** The organization the principal belongs to. */
  readonly orgId: string;
  /** The user id (absent for API keys): what `members.create({ user_id })` takes. */
  readonly userId?: string;
  /** The principal's organization member id (absent for API keys). */
  readonly memberId?: string;
  /** The user's e-mail (absent for API keys). */
  readonly email?: string;
}

/** The principals every fresh mock has, with the same tokens again after every `reset()`. */
export interface MockPrincipals {
  /** Ada, the owner of the organization "Acme". */
  readonly owner: MockPrincipal;
  /** An API key of Acme acting as admin. */
  readonly adminKey: MockPrincipal;
  /** Grace, a plain member of Acme. */
  readonly member: MockPrincipal;
  /** Linus, owner of another organization ("Globex"): sees nothing of Acme. */
  readonly outsider: MockPrincipal;
  /** Ken, another plain member of Acme: someone to add to vaults and teams. */
  readonly colleague: MockPrincipal;
}

const SEED_TIME = '2026-01-05T09:00:00.000Z';
const SWEEP_INTERVAL_MS = 60_000;

/** @internal The state of one mock instance. */
export class MockStore {
  readonly clock: MockClock;
  readonly sealer = new ValueSealer();
  orgs = new Map<string, OrgRecord>();
  users = new Map<string, UserRecord>();
  principals = new Map<string, PrincipalRecord>();
  orgMembers = new Map<string, OrgMemberRecord>();
  vaults = new Map<string, VaultRecord>();
  vaultMembers = new Map<string, VaultMemberRecord>();
  secrets = new Map<string, SecretRecord>();
  teams = new Map<string, TeamRecord>();
  teamMembers = new Map<string, TeamMemberRecord>();
  invitations = new Map<string, InvitationRecord>();
  audit = new Map<string, AuditRecord>();
  idempotency = new Map<string, IdempotencyRecord>();
  cursors = new Map<string, CursorRecord>();
  #sequence = 0;
  readonly #idSeed: number | undefined;
  #randomUuid!: RandomUuid;
  #seeded!: MockPrincipals;
  #lastSweep = Number.NEGATIVE_INFINITY;

  /** `idSeed`: ids from a generator seeded by it (started over by `reset()`), not at random. */
  constructor(clock: MockClock, idSeed?: number) {
    this.clock = clock;
    this.#idSeed = idSeed;
    this.reset();
  }

  get seededPrincipals(): MockPrincipals {
    return this.#seeded;
  }

  /** The current time as the contract's timestamp: ISO 8601 UTC with milliseconds. */
  timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /**
   * A UUID-shaped id whose first group counts up, so ids sort in creation order and ties on
   * `created_at` still list newest first.
   */
  newId(): string {
    this.#sequence += 1;
    const random = this.#randomUuid();
    return `${this.#sequence.toString(16).padStart(8, '0')}${random.slice(8)}`;
  }

  /**
   * Drops expired cursors and stored idempotent responses, so a mock that runs for days does not
   * grow with every list it pages and every create it replays. Runs at most once per minute of
   * the mock's clock (or at once when the clock moved back), since each run walks both maps.
   */
  sweepExpired(): void {
    const now = this.clock.now();
    if (now - this.#lastSweep < SWEEP_INTERVAL_MS && now >= this.#lastSweep) return;
    this.#lastSweep = now;
    for (const [token, cursor] of this.cursors) {
      if (cursor.expiresAt <= now) this.cursors.delete(token);
    }
    for (const [scope, record] of this.idempotency) {
      // A running record has no expiry: it is dropped when its request ends.
      if (record.state === 'done' && record.expiresAt <= now) this.idempotency.delete(scope);
    }
  }

  /** Drops every record and seeds the organizations and principals again. */
  reset(): void {
    for (const map of [
      this.orgs,
      this.users,
      this.principals,
      this.orgMembers,
      this.vaults,
      this.vaultMembers,
      this.secrets,
      this.teams,
      this.teamMembers,
      this.invitations,
      this.audit,
      this.idempotency,
      this.cursors,
    ]) {
      map.clear();
    }
    this.#sequence = 0;
    this.#randomUuid = createRandomUuid(this.#idSeed);
    this.#lastSweep = Number.NEGATIVE_INFINITY;
    this.#seeded = this.#seed();
  }

  #seed(): MockPrincipals {
    const acme = this.#org('Acme', 'team', '🔐', '#6B7280');
    const globex = this.#org('Globex', 'business', '🌐', '#0EA5E9');
    const owner = this.#user(acme, 'Ada Lovelace', 'ada@acme.test', 'owner', 'sv_mock_owner_token');
    const member = this.#user(
      acme,
      'Grace Hopper',
      'grace@acme.test',
      'member',
      'sv_mock_member_token',
    );
    const colleague = this.#user(
      acme,
      'Ken Thompson',
      'ken@acme.test',
      'member',
      'sv_mock_colleague_token',
    );
    const outsider = this.#user(
      globex,
      'Linus Torvalds',
      'linus@globex.test',
      'owner',
      'sv_mock_outsider_token',
    );
    const keyId = this.newId();
    const adminKey: PrincipalRecord = {
      id: keyId,
      kind: 'api_key',
      orgId: acme.id,
      name: 'CI deploy key',
      token: 'sv_mock_admin_key',
      apiKeyRole: 'admin',
    };
    this.principals.set(adminKey.token, adminKey);
    return {
      owner,
      adminKey: { token: adminKey.token, name: adminKey.name, orgId: acme.id },
      member,
      outsider,
      colleague,
    };
  }

  #org(name: string, plan: string, emoji: string, color: string): OrgRecord {
    const org: OrgRecord = {
      id: this.newId(),
      name,
      plan,
      emoji_icon: emoji,
      color,
      created_at: SEED_TIME,
    };
    this.orgs.set(org.id, org);
    return org;
  }

  #user(org: OrgRecord, name: string, email: string, role: OrgRole, token: string): MockPrincipal {
    const user: UserRecord = { id: this.newId(), name, email };
    this.users.set(user.id, user);
    const membership: OrgMemberRecord = {
      id: this.newId(),
      org_id: org.id,
      user,
      email,
      role,
      status: 'active',
      created_at: SEED_TIME,
    };
    this.orgMembers.set(membership.id, membership);
    const principal = { name, orgId: org.id, userId: user.id, memberId: membership.id, email };
    this.principals.set(token, {
      id: user.id,
      kind: 'user',
      orgId: org.id,
      name,
      token,
      userId: user.id,
    });
    return { ...principal, token };
  }

  /** The org role a principal acts with now, or undefined when it no longer belongs to the org. */
  orgRoleOf(principal: PrincipalRecord): OrgRole | undefined {
    if (principal.kind === 'api_key') return principal.apiKeyRole;
    const membership = this.orgMemberOfUser(principal.orgId, principal.userId);
    return membership && isOrgRole(membership.role) ? membership.role : undefined;
  }

  orgMemberOfUser(orgId: string, userId: string | undefined): OrgMemberRecord | undefined {
    for (const member of this.orgMembers.values()) {
      if (member.org_id === orgId && member.user.id === userId) return member;
    }
    return undefined;
  }

  /**
   * The caller's effective role on a vault: org owners and admins are admins of every vault
   * of their organization; anyone else holds the role of their membership, if any.
   */
  vaultRoleOf(principal: PrincipalRecord, vault: VaultRecord): VaultRoleName | undefined {
    if (vault.org_id !== principal.orgId) return undefined;
    const orgRole = this.orgRoleOf(principal);
    if (orgRole === 'owner' || orgRole === 'admin') return 'admin';
    for (const member of this.vaultMembers.values()) {
      if (member.vault_id === vault.id && member.user.id === principal.userId) return member.role;
    }
    return undefined;
  }
}

export function isOrgRole(value: unknown): value is OrgRole {
  return ORG_ROLES.includes(value as OrgRole);
}

export function isVaultRole(value: unknown): value is VaultRoleName {
  return VAULT_ROLES.includes(value as VaultRoleName);
}
