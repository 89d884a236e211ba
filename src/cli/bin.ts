/**
 * The `secrets-vault` executable (`dist/cli.js`). The build puts the launcher lines of
 * scripts/cli-launcher.ts first, which start Node with a `--` before this file's name.
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
