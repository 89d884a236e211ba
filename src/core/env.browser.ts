/**
 * The browser build's `env.ts`: a web page has no environment, so every variable is unset, and
 * no construction error needs saying in a shell's words.
 */
import type * as Env from './env.js';

/** @internal Always undefined: a web page has no environment. */
export const readEnv: typeof Env.readEnv = () => undefined;

/** @internal Always undefined: a web page has no environment. */
export const readEnvSetting: typeof Env.readEnvSetting = () => undefined;

/** @internal Always undefined: a web page has no environment, and no file to read. */
export const readEnvToken: typeof Env.readEnvToken = () => undefined;

/** @internal The error as it is: no command runs in a web page to say it otherwise. */
export const namingSetting: typeof Env.namingSetting = (error) => error;
