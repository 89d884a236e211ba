/**
 * The browser every browser test drives: Debian's Chromium (never a downloaded one), headless,
 * with nothing of its own going on the network.
 */

/** Where Chromium is: `CHROMIUM_PATH`, or Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags it is launched with. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
