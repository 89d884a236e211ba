/** The `secrets-vault` executable (`dist/cli.js`; the build adds the `#!/usr/bin/env node` line). */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
