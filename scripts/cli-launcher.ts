/**
 * The first two lines of the `secrets-vault` command (dist/cli.js), which make the file both a
 * POSIX shell script and an ES module. Run as a program (npm's bin link, `npx`, a PATH lookup),
 * the kernel hands it to `sh`, which replaces itself with `node -- <this file> <arguments>`. Run
 * by Node, the `#!` line is a comment and the second line a string followed by a comment. `sh`
 * is found on PATH as `node` was, through `env`: npm's Windows shims run the `#!` line's
 * program, and publint knows a bin by a `#!/usr/bin/env` line.
 *
 * Why not `#!/usr/bin/env node`: before it runs any script, Node.js looks through its whole
 * command line, the script's own arguments included, for `--env-file`, `--env-file=` and
 * `--env-file-if-exists`, loads each file into its own environment and obeys the file's
 * `NODE_OPTIONS`. So `secrets-vault run --env-file .env` made Node run whatever `--require` or
 * `--import` a committed `.env` named, inside the process that holds the job's token and
 * fallback key; it also read `/dev/zero` without end, and exited 9 on a missing file, before the
 * command's own reader (1 MiB at most, exit 1 naming the file) ever saw the flag. Node stops
 * looking at the first `--`, and only the program that starts Node can put one before the
 * script's name.
 *
 * Why a shell rather than `#!/usr/bin/env -S node --`: busybox's `env` (Alpine images) has no
 * `-S`, and without it Linux hands `env` the rest of the `#!` line as one word (`node --`), so
 * no `#!` line alone can give `node` an option everywhere. `exec` keeps the process id, so a
 * signal sent to `secrets-vault` reaches Node itself, as before. The cost: npm's Windows shims
 * now run `sh`, which a Windows machine has only with a POSIX shell on PATH (MSYS2's, Git for
 * Windows').
 *
 * `node dist/cli.js` still runs the command, but without the `--`: Node looks through its
 * arguments again. Tests and tools may start it so; a user's `--env-file` must not.
 */
export const CLI_LAUNCHER = `#!/usr/bin/env sh\n':' //; exec node -- "$0" "$@"`;
