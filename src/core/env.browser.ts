/**
 * The browser build's `env.ts`: a web page has no environment, so every variable is unset.
 */
import type * as Env from './env.js';

/** @internal Always undefined: a web page has no environment. */
export const readEnv: typeof Env.readEnv = () => undefined;

/** @internal Always undefined: a web page has no environment. */
export const readEnvSetting: typeof Env.readEnvSetting = () => undefined;
