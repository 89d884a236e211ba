/**
 * `@secrets-vault/sdk/opentelemetry`: the client's calls as OpenTelemetry spans, to give as the
 * client's `telemetry` option. Built on `@opentelemetry/api`, an optional peer dependency that
 * only this entry loads: the package root and its browser build never import it.
 *
 * @packageDocumentation
 */

export { type OpenTelemetryOptions, openTelemetry } from './open-telemetry.js';
