// Type-checks every ```ts and ```tsx block of the guides (README.md and docs/*.md, not the
// generated docs/api) against the SDK sources, so the code users copy cannot drift from the API.
//
// Each block is its own module, compiled in memory with the TypeScript compiler API and this
// repository's tsconfig.json (strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes,
// verbatimModuleSyntax, … all kept), plus `types: ['node', 'react']` for `process`, `node:`
// modules and React's types. A ```tsx block is compiled as a .tsx file with `jsx: 'react-jsx'`,
// as Next.js and Vite compile components: JSX needs no `import React`, and its types come from
// @types/react. `@secrets-vault/sdk`, `/mock`, `/mock/node` and `/query` resolve to src/ through
// the tsconfig `paths`; `zod`, `msw`, `vitest`, `react`, `@tanstack/react-query` and
// `@tanstack/query-core` resolve from node_modules.
//
// A block may use a name it neither declares nor imports. Such a name is, in this order:
// 1. a top-level value declared by an earlier ts or tsx block of the same file (guides build on
//    their earlier blocks, as `config` and `Config` do in docs/server-jobs.md), typed by that
//    block;
// 2. one of the PRELUDE declarations below, appended to the block only when it uses the name.
// Anything else fails, as does every other compiler error, reported as file:line:column.
//
// A block that cannot compile on purpose is skipped only by a marker on the line before its
// fence: <!-- docs-check: skip (why) -->
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Where the blocks live as virtual files: an existing directory inside the repository, so that
// module resolution finds node_modules and the tsconfig `paths` apply.
const blockDirectory = dirname(fileURLToPath(import.meta.url));

/** Ambient declarations for the names the guides use without defining them. */
const PRELUDE = {
  client: "declare const client: import('@secrets-vault/sdk').SecretsVault;",
  mock: "declare const mock: import('@secrets-vault/sdk/mock').VaultMock;",
  vaultId: 'declare const vaultId: string;',
  secretId: 'declare const secretId: string;',
  jobId: 'declare const jobId: string;',
  // The application's structured logger (pino's argument order).
  log: 'declare const log: { info(fields: object, message: string): void };',
  // The application's database connection; like most drivers, it takes an optional password.
  connect: 'declare function connect(password: string | undefined): Promise<void>;',
  // The application's TanStack Query options and cache, made once as docs/tanstack-query.md shows.
  q: "declare const q: import('@secrets-vault/sdk/query').SecretsVaultQueries;",
  queryClient: "declare const queryClient: import('@tanstack/query-core').QueryClient;",
  // The web application's sign-in session (Auth.js's `auth()` and the like), which holds the
  // signed-in person's own token.
  getSession: 'declare function getSession(): Promise<{ readonly vaultToken: string }>;',
};

/** The fence languages checked, and the extension their blocks are compiled with. */
const EXTENSIONS = { ts: '.ts', typescript: '.ts', tsx: '.tsx' };
const SKIP_MARKER = /^<!--\s*docs-check:\s*skip\s*\((.+)\)\s*-->$/;
// "Cannot find name 'x'" (with or without a suggestion) and "No value exists in scope for the
// shorthand property 'x'".
const MISSING_NAME_CODES = new Set([2304, 2552, 18004]);

function markdownFiles() {
  const docs = readdirSync(join(root, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join('docs', entry.name))
    .sort();
  return ['README.md', ...docs];
}

/**
 * The ts and tsx blocks of one markdown file, with the 1-based line of their opening fence and
 * the extension to compile them with.
 */
function extractBlocks(path) {
  const lines = readFileSync(join(root, path), 'utf8').split('\n');
  const blocks = [];
  const skipped = [];
  let open;
  for (const [index, line] of lines.entries()) {
    if (open) {
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (closing?.[1]?.[0] === open.fence[0] && closing[1].length >= open.fence.length) {
        if (Object.hasOwn(EXTENSIONS, open.language)) {
          const extension = EXTENSIONS[open.language];
          const block = { path, line: open.line, extension, code: `${open.body.join('\n')}\n` };
          const previous = lines.slice(0, open.line - 1).findLast((text) => text.trim() !== '');
          const skip = SKIP_MARKER.exec(previous?.trim() ?? '');
          if (skip) skipped.push({ ...block, reason: skip[1] });
          else blocks.push(block);
        }
        open = undefined;
      } else {
        open.body.push(line);
      }
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (opening) open = { fence: opening[1], language: opening[2], line: index + 1, body: [] };
  }
  if (open) throw new Error(`${path}:${open.line}: code fence is never closed`);
  return { blocks, skipped };
}

/**
 * The names a block declares at its top level as values (not its imports), and those of them it
 * already exports by name (`export function prefetch…`), which must not be exported twice.
 */
function topLevelValueNames(code, extension) {
  // The extension picks the parser: JSX parses only in a .tsx file.
  const source = ts.createSourceFile(`block${extension}`, code, ts.ScriptTarget.Latest);
  const names = new Set();
  const exported = new Set();
  const add = (name, statement) => {
    names.add(name);
    // `export default function Page` exports `default`, not `Page`.
    const modifiers = ts.getCombinedModifierFlags(statement);
    if (modifiers & ts.ModifierFlags.Export && !(modifiers & ts.ModifierFlags.Default))
      exported.add(name);
  };
  const addBinding = (name, statement) => {
    if (ts.isIdentifier(name)) add(name.text, statement);
    else
      for (const element of name.elements)
        if (!ts.isOmittedExpression(element)) addBinding(element.name, statement);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        addBinding(declaration.name, statement);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      add(statement.name.text, statement);
    }
  }
  return { names, exported };
}

function compilerOptions() {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error)
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  return {
    ...parsed.options,
    types: ['node', 'react'],
    // Only .tsx files (the tsx blocks) have JSX; the automatic runtime, as Next.js and Vite use.
    jsx: ts.JsxEmit.ReactJSX,
    // Every block is a module, even one without import or export (top-level await, own scope).
    moduleDetection: ts.ModuleDetectionKind.Force,
    noEmit: true,
  };
}

/** Compiles the virtual files (path → text) together; the rest comes from disk, parsed once. */
function createCompiler(options) {
  const diskFiles = new Map();
  let oldProgram;
  return (virtualFiles) => {
    const host = ts.createCompilerHost(options, true);
    const readDisk = host.getSourceFile.bind(host);
    host.fileExists = (path) => virtualFiles.has(path) || ts.sys.fileExists(path);
    host.readFile = (path) => virtualFiles.get(path) ?? ts.sys.readFile(path);
    host.getSourceFile = (path, languageVersion, onError) => {
      const text = virtualFiles.get(path);
      if (text !== undefined) return ts.createSourceFile(path, text, languageVersion, true);
      if (!diskFiles.has(path)) diskFiles.set(path, readDisk(path, languageVersion, onError));
      return diskFiles.get(path);
    };
    const program = ts.createProgram([...virtualFiles.keys()], options, host, oldProgram);
    oldProgram = program;
    return program;
  };
}

function diagnosticsOf(program) {
  return [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics(),
  ];
}

const files = markdownFiles();
const blocks = [];
const skipped = [];
for (const path of files) {
  const found = extractBlocks(path);
  for (const block of found.blocks) {
    const stem = path.replace(/\.md$/, '').replaceAll(/[^\w-]/g, '_');
    const { names, exported } = topLevelValueNames(block.code, block.extension);
    blocks.push({
      ...block,
      virtualPath: join(blockDirectory, `${stem}.L${block.line}${block.extension}`),
      declares: names,
      exportedByName: exported,
      // The names later blocks use that the block does not export itself: exported for them.
      exports: new Set(),
      additions: [],
    });
  }
  skipped.push(...found.skipped);
}
const byVirtualPath = new Map(blocks.map((block) => [block.virtualPath, block]));
const compile = createCompiler(compilerOptions());

// First pass: each block alone, to learn which names it uses without defining them.
const firstPass = compile(new Map(blocks.map((block) => [block.virtualPath, block.code])));
for (const diagnostic of firstPass.getSemanticDiagnostics()) {
  const block = diagnostic.file && byVirtualPath.get(diagnostic.file.fileName);
  if (!block || !MISSING_NAME_CODES.has(diagnostic.code) || diagnostic.start === undefined)
    continue;
  const name = diagnostic.file.text.slice(diagnostic.start, diagnostic.start + diagnostic.length);
  if (block.additions.some((addition) => addition.name === name)) continue;
  const earlier = blocks.findLast(
    (other) => other.path === block.path && other.line < block.line && other.declares.has(name),
  );
  if (earlier) {
    if (!earlier.exportedByName.has(name)) earlier.exports.add(name);
    const module = `./${relative(blockDirectory, earlier.virtualPath).replace(/\.tsx?$/, '')}`;
    block.additions.push({
      name,
      text: `declare const ${name}: typeof import('${module}').${name};`,
    });
  } else if (Object.hasOwn(PRELUDE, name)) {
    block.additions.push({ name, text: PRELUDE[name] });
  }
}

// Second pass: each block with its additions after its own code, so its lines keep their numbers,
// and the whole prelude in a module of its own, so that an entry no block uses yet is checked too.
const preludePath = join(blockDirectory, 'prelude.ts');
const secondPass = compile(
  new Map([
    ...blocks.map((block) => {
      const additions = block.additions.map((addition) => addition.text);
      if (block.exports.size > 0) additions.push(`export { ${[...block.exports].join(', ')} };`);
      return [block.virtualPath, [block.code, ...additions].join('\n')];
    }),
    [preludePath, Object.values(PRELUDE).join('\n')],
  ]),
);
if (process.env.DOCS_CHECK_VERBOSE) {
  for (const block of blocks) {
    const names = block.additions.map((addition) => addition.text);
    console.log(`${block.path}:${block.line}`, names.length > 0 ? names : '(self-contained)');
  }
}

const failures = [];
// Failures in the order of the files (README.md first), then of their lines.
const sortKey = (failure) => {
  const index = files.findIndex((path) => failure.startsWith(`${path}:`));
  return `${String(index === -1 ? files.length : index).padStart(3, '0')} ${failure}`;
};
for (const diagnostic of diagnosticsOf(secondPass)) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const block = diagnostic.file && byVirtualPath.get(diagnostic.file.fileName);
  if (!diagnostic.file || diagnostic.start === undefined) {
    failures.push(`TS${diagnostic.code}: ${message}`);
  } else if (!block) {
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const where = `${relative(root, diagnostic.file.fileName)}:${line + 1}:${character + 1}`;
    failures.push(`${where}: TS${diagnostic.code}: ${message}`);
  } else {
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const blockLines = block.code.split('\n').length - 1;
    const where =
      line < blockLines
        ? `${block.path}:${block.line + 1 + line}:${character + 1}`
        : `${block.path}:${block.line} (prelude of the block)`;
    failures.push(`${where}: TS${diagnostic.code}: ${message}`);
  }
}

if (failures.length > 0) {
  failures.sort((left, right) =>
    sortKey(left).localeCompare(sortKey(right), 'en', { numeric: true }),
  );
  console.error(`docs: ${failures.length} type errors in the ts and tsx blocks of the guides\n`);
  for (const failure of failures) console.error(failure);
  process.exit(1);
}
const withBlocks = new Set(blocks.map((block) => block.path)).size;
const skippedNote = skipped.length > 0 ? ` (${skipped.length} skipped)` : '';
const tsxBlocks = blocks.filter((block) => block.extension === '.tsx').length;
console.log(
  `docs: ${blocks.length} ts and tsx blocks (${tsxBlocks} tsx) from ${withBlocks} files type-check${skippedNote}`,
);
