/**
 * The browser build's `fast-accept.ts`: no fast path, every value goes through zod.
 */
import type * as FastAccept from './fast-accept.js';

const askZod = () => false;

/** @internal Nothing to declare: zod decides every time. */
export const declareFastPath: typeof FastAccept.declareFastPath = () => undefined;

/** @internal A predicate that never accepts at once, so that zod decides every time. */
export const acceptsAtOnce: typeof FastAccept.acceptsAtOnce = () => askZod;
