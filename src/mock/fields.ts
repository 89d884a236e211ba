/**
 * Field rules the mock enforces (names, icons, colours, roles, expiry): each
 * reader returns the field's value or throws 422 `validation_error` naming the field.
 */
import { validation } from './pipeline.js';
import { isVaultRole, type VaultRoleName } from './store.js';

type Body = Readonly<Record<string, unknown>>;

/** A name of 1 to 100 characters after trimming. */
export function readName(body: Body, field = 'name'): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim().length < 1 || value.trim().length > 100) {
    throw validation(`\`${field}\` must be a string of 1 to 100 characters`);
  }
  return value;
}

/** An integer from 0 to 31. */
export function readIconIndex(body: Body): number {
  const value = body.icon_index;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 31) {
    throw validation('`icon_index` must be an integer from 0 to 31');
  }
  return value;
}

/** A colour `#RRGGBB`, hex digits in either case. */
export function readColor(body: Body): string {
  const value = body.color;
  if (typeof value !== 'string' || !/^#[0-9A-Fa-f]{6}$/.test(value)) {
    throw validation('`color` must be a colour in the form #RRGGBB');
  }
  return value;
}

/** A secret value: an object whose values are all strings. */
export function readSecretValue(body: Body): Record<string, string> {
  const value = body.value;
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((item) => typeof item === 'string')
  ) {
    throw validation('`value` must be an object whose values are all strings');
  }
  return { ...(value as Record<string, string>) };
}

/** A secret type of 1 to 32 characters. */
export function readSecretType(body: Body): string {
  const value = body.type;
  if (typeof value !== 'string' || value.length < 1 || value.length > 32) {
    throw validation('`type` must be a string of 1 to 32 characters');
  }
  return value;
}

/** An ISO 8601 timestamp or null, normalised to the contract's UTC milliseconds form. */
export function readExpiry(body: Body): string | null {
  const value = body.expired_at;
  if (value === null) return null;
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  if (typeof value !== 'string' || !iso.test(value) || Number.isNaN(Date.parse(value))) {
    throw validation('`expired_at` must be an ISO 8601 timestamp or null');
  }
  return new Date(value).toISOString();
}

/** A boolean field. */
export function readBoolean(body: Body, field: string): boolean {
  const value = body[field];
  if (typeof value !== 'boolean') throw validation(`\`${field}\` must be a boolean`);
  return value;
}

/** A required string field (an id or an e-mail). */
export function readString(body: Body, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '')
    throw validation(`\`${field}\` must be a non-empty string`);
  return value;
}

/** A vault role: admin, editor or member. */
export function readVaultRole(body: Body): VaultRoleName {
  const value = body.role;
  if (!isVaultRole(value)) throw validation('`role` must be one of admin, editor, member');
  return value;
}

/** Whether the body carries `field` (PATCH: omitted fields keep their value). */
export function has(body: Body, field: string): boolean {
  return Object.hasOwn(body, field);
}
