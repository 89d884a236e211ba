/**
 * Turns whatever a call threw into a sentence for the person at the screen. It matches on the
 * SDK's error classes (never on message text, which the service may reword) and shows the
 * request id, so a support ticket can point at the exact request.
 */
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  SecretsVaultError,
  UnprocessableEntityError,
} from '@secrets-vault/sdk';

/** One sentence for the person at the screen, chosen by the error's class. */
export function describeError(error: unknown): string {
  if (error instanceof RequestValidationError) {
    const fields = error.issues.map(
      (issue) => `${issue.path.join('.') || 'input'} ${issue.message}`,
    );
    return `Check the form: ${fields.join('; ')}. Nothing was sent.`;
  }
  if (error instanceof AuthenticationError) {
    return 'The service did not accept this token. Check it and connect again.';
  }
  if (error instanceof PermissionDeniedError) {
    return 'Your role on this vault does not allow that. Ask a vault admin for editor access.';
  }
  if (error instanceof NotFoundError) {
    return 'That no longer exists, or you no longer have access to it.';
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfter === null ? 'a moment' : `${error.retryAfter} s`;
    return `Too many requests right now. Wait ${wait} and try again.`;
  }
  if (error instanceof BadRequestError || error instanceof UnprocessableEntityError) {
    return `The service refused the input: ${error.message}`;
  }
  if (error instanceof APITimeoutError) {
    return 'The service took too long to answer. Try again.';
  }
  if (error instanceof APIConnectionError) {
    return 'Could not reach the service. Check your connection, or the proxy in front of it.';
  }
  if (error instanceof APIError) {
    return `The service failed (${error.status}). Request id: ${error.requestId ?? 'none'}.`;
  }
  if (error instanceof SecretsVaultError) return `Something went wrong: ${error.message}`;
  return 'Something went wrong in the page itself. Reload and try again.';
}
