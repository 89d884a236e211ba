/**
 * docs/kubernetes.md promises manifests that a cluster accepts as written. Every ```yaml block of
 * the page is parsed as kubectl parses it (YAML 1.1, so `0440` is octal; duplicate keys refused)
 * and each object is checked, offline, the way `kubectl apply` with server-side field validation
 * checks it: its types, required fields and enums, and no field the API does not know.
 *
 * - Kubernetes' own kinds: the validators of `kubernetes-models` (types, required fields, enums)
 *   plus the field lists of `@kubernetes/client-node`'s models, both generated from the
 *   Kubernetes OpenAPI, since the first ignore unknown fields.
 * - The External Secrets Operator's kinds: the CRDs' own openAPIV3Schema (vendored in
 *   fixtures/), with unknown fields refused wherever the schema lists the fields, as the API
 *   server's structural pruning does.
 *
 * The SecretStore's `result.jsonPath` is then run, as the operator runs it, on the real answer of
 * the mock served over HTTP.
 */
import { readFileSync } from 'node:fs';
import * as clientModels from '@kubernetes/client-node/dist/gen/models/all.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { JSONPath } from 'jsonpath-plus';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SecretsVault } from '../../src/index.js';
import { createVaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';

type Manifest = Record<string, unknown> & { apiVersion: string; kind: string };
type Json = Record<string, unknown>;

const DOC_PATH = 'docs/kubernetes.md';
const doc = readFileSync(new URL(`../../${DOC_PATH}`, import.meta.url), 'utf8');

// ---------------------------------------------------------------------------------------------
// Reading the page

/** The ```yaml blocks of a markdown text, with the line of their opening fence. */
function yamlBlocks(markdown: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  let open: { line: number; fence: string; yaml: boolean; body: string[] } | undefined;
  for (const [index, line] of markdown.split('\n').entries()) {
    if (open) {
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (
        closing !== undefined &&
        closing[0] === open.fence[0] &&
        closing.length >= open.fence.length
      ) {
        if (open.yaml) blocks.push({ line: open.line, text: open.body.join('\n') });
        open = undefined;
      } else {
        open.body.push(line);
      }
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (opening?.[1])
      open = { line: index + 1, fence: opening[1], yaml: opening[2] === 'yaml', body: [] };
  }
  if (open) throw new Error(`${DOC_PATH}:${open.line}: code fence is never closed`);
  return blocks;
}

/** The objects of one block, parsed as kubectl parses YAML (1.1, duplicate keys refused). */
function parseManifests(text: string, where: string): Manifest[] {
  return parseAllDocuments(text, { version: '1.1', uniqueKeys: true }).map((document, index) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0)
      throw new Error(`${where}, document ${index + 1}: ${problems.map(String).join('; ')}`);
    const object: unknown = document.toJS();
    if (
      !isObject(object) ||
      typeof object.apiVersion !== 'string' ||
      typeof object.kind !== 'string'
    )
      throw new Error(`${where}, document ${index + 1}: not a Kubernetes object`);
    return object as Manifest;
  });
}

const manifests = yamlBlocks(doc).flatMap(({ line, text }) =>
  parseManifests(text, `${DOC_PATH}:${line}`).map((manifest) => ({ line, manifest })),
);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes' own kinds

interface AttributeType {
  readonly baseName: string;
  readonly type: string;
  readonly format: string;
}
const modelClasses = clientModels as unknown as Record<
  string,
  { readonly attributeTypeMap?: readonly AttributeType[] } | undefined
>;

/** The fields of `value` that the OpenAPI type `type` does not have, or whose type is wrong. */
function fieldProblems(value: unknown, type: string, path: string): string[] {
  if (value === null) return [];
  const wrong = (expected: string) => [
    `${path}: expected ${expected}, got ${JSON.stringify(value)}`,
  ];
  switch (type) {
    case 'any':
    case 'object':
      return [];
    case 'string':
    case 'Date':
      return typeof value === 'string' ? [] : wrong('a string');
    case 'number':
      return typeof value === 'number' ? [] : wrong('a number');
    case 'boolean':
      return typeof value === 'boolean' ? [] : wrong('a boolean');
    case 'IntOrString':
      return typeof value === 'string' || Number.isInteger(value) ? [] : wrong('int or string');
  }
  const itemType = /^Array<(.+)>$/.exec(type)?.[1];
  if (itemType !== undefined) {
    if (!Array.isArray(value)) return wrong('a list');
    return value.flatMap((item, index) => fieldProblems(item, itemType, `${path}[${index}]`));
  }
  const entryType = /^\{ \[key: string\]: (.+); \}$/.exec(type)?.[1];
  if (entryType !== undefined) {
    if (!isObject(value)) return wrong('a map');
    return Object.entries(value).flatMap(([key, entry]) =>
      fieldProblems(entry, entryType, `${path}.${key}`),
    );
  }
  const attributes = modelClasses[type]?.attributeTypeMap;
  if (attributes === undefined) throw new Error(`${path}: no model named ${type}`);
  if (!isObject(value)) return wrong(`an object (${type})`);
  return Object.entries(value).flatMap(([key, field]) => {
    const attribute = attributes.find((candidate) => candidate.baseName === key);
    if (attribute === undefined) return [`${path}: unknown field "${key}"`];
    const problems = fieldProblems(field, attribute.type, `${path}.${key}`);
    if (problems.length === 0 && attribute.format === 'int32' && !Number.isInteger(field))
      return [`${path}.${key}: expected an integer`];
    return problems;
  });
}

/** The `kubernetes-models` class of each core kind the page uses. */
const CORE_KINDS: Record<string, (data: Json) => { validate(): void }> = {
  'v1/ConfigMap': (data) => new ConfigMap(data as never),
  'apps/v1/Deployment': (data) => new Deployment(data as never),
  'apps/v1/DaemonSet': (data) => new DaemonSet(data as never),
  'networking.k8s.io/v1/NetworkPolicy': (data) => new NetworkPolicy(data as never),
};

/** The client-node model of an object: `apps/v1` `Deployment` is `V1Deployment`. */
function clientModelName({ apiVersion, kind }: Manifest): string {
  const version = apiVersion.split('/').at(-1) ?? '';
  return `${version[0]?.toUpperCase()}${version.slice(1)}${kind}`;
}

// ---------------------------------------------------------------------------------------------
// The External Secrets Operator's kinds

interface VendoredCrd {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly openAPIV3Schema: Json;
}
const readCrd = (name: string): VendoredCrd =>
  JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));

/**
 * `schema` as the API server applies it with strict field validation: an object schema that
 * lists its fields, without `additionalProperties` or `x-kubernetes-preserve-unknown-fields`,
 * refuses every other field.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!isObject(schema)) return schema;
  const copy = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      // Field names are data here, not schemas.
      key === 'properties' && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, field]) => [name, strict(field)]))
        : strict(value),
    ]),
  );
  if (
    isObject(copy.properties) &&
    !('additionalProperties' in copy) &&
    copy['x-kubernetes-preserve-unknown-fields'] !== true
  )
    copy.additionalProperties = false;
  return copy;
}

const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false });
for (const keyword of [
  'x-kubernetes-validations', // CEL rules: not evaluated here
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'example', // an OpenAPI annotation
])
  ajv.addKeyword(keyword);

const CRD_KINDS: Record<string, ValidateFunction> = Object.fromEntries(
  ['external-secrets-secretstore-v1.json', 'external-secrets-externalsecret-v1.json'].map(
    (file) => {
      const crd = readCrd(file);
      return [
        `${crd.group}/${crd.version}/${crd.kind}`,
        ajv.compile(strict(crd.openAPIV3Schema) as Json),
      ];
    },
  ),
);

// ---------------------------------------------------------------------------------------------
// One check for every kind

/** What `kubectl apply --validate=strict` would refuse in `manifest`, as readable lines. */
function validationProblems(manifest: Manifest): string[] {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const crd = CRD_KINDS[key];
  if (crd) {
    const problems = crd(manifest)
      ? []
      : (crd.errors ?? []).map(
          (error) =>
            `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
        );
    // The API server checks a custom resource's metadata as any object's.
    return [...problems, ...fieldProblems(manifest.metadata, 'V1ObjectMeta', 'metadata')];
  }
  const model = CORE_KINDS[key];
  if (!model) throw new Error(`no schema for ${key}: add its kind to the test`);
  const problems: string[] = [];
  try {
    model(manifest).validate();
  } catch (error) {
    problems.push(String(error));
  }
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = manifest;
  return [...problems, ...fieldProblems(fields, clientModelName(manifest), key)];
}

describe(`${DOC_PATH}: every manifest is accepted as written`, () => {
  it('has manifests for each way the page shows', () => {
    const kinds = manifests.map(({ manifest }) => `${manifest.apiVersion}/${manifest.kind}`);
    expect(new Set(kinds)).toEqual(
      new Set([
        'v1/ConfigMap',
        'apps/v1/Deployment',
        'apps/v1/DaemonSet',
        'networking.k8s.io/v1/NetworkPolicy',
        'external-secrets.io/v1/SecretStore',
        'external-secrets.io/v1/ExternalSecret',
      ]),
    );
  });

  it.each(
    manifests.map(({ line, manifest }) => ({
      where: `${DOC_PATH}:${line} ${manifest.kind} ${String((manifest.metadata as Json).name)}`,
      manifest,
    })),
  )('$where', ({ manifest }) => {
    expect(validationProblems(manifest)).toEqual([]);
  });
});

describe('the validation refuses what a cluster refuses', () => {
  const first = (kind: string, name?: string): Manifest => {
    const found = manifests.find(
      ({ manifest }) =>
        manifest.kind === kind && (name === undefined || (manifest.metadata as Json).name === name),
    );
    if (!found) throw new Error(`no ${kind} ${name ?? ''} on the page`);
    return structuredClone(found.manifest);
  };
  const podSpec = (manifest: Manifest) =>
    ((manifest.spec as Json).template as Json).spec as Json & {
      containers: Json[];
      initContainers?: Json[];
    };

  const broken: [string, () => Manifest, RegExp][] = [
    [
      'an unknown field in a container',
      () => {
        const deployment = first('Deployment', 'app');
        podSpec(deployment).containers[0] = {
          ...podSpec(deployment).containers[0],
          imagePullPolicyy: 'Always',
        };
        return deployment;
      },
      /unknown field "imagePullPolicyy"/,
    ],
    [
      'a misspelt field of the pod (initContainer)',
      () => {
        const deployment = first('Deployment', 'gateway');
        const spec = podSpec(deployment);
        spec.initContainer = spec.initContainers;
        delete spec.initContainers;
        return deployment;
      },
      /unknown field "initContainer"/,
    ],
    [
      'a port given as a string',
      () => {
        const daemonSet = first('DaemonSet');
        const agent = podSpec(daemonSet).containers[0] as { ports: Json[] };
        (agent.ports[0] as Json).hostPort = '8210';
        return daemonSet;
      },
      /hostPort/,
    ],
    [
      'a value outside an enum (imagePullPolicy: Sometimes)',
      () => {
        const deployment = first('Deployment', 'api');
        (podSpec(deployment).containers[0] as Json).imagePullPolicy = 'Sometimes';
        return deployment;
      },
      /imagePullPolicy/,
    ],
    [
      'an unknown metadata field (label)',
      () => {
        const configMap = first('ConfigMap');
        (configMap.metadata as Json).label = { team: 'payments' };
        return configMap;
      },
      /unknown field "label"/,
    ],
    [
      'a misspelt field of the webhook provider (jsonpath)',
      () => {
        const store = first('SecretStore');
        const webhook = ((store.spec as Json).provider as Json).webhook as Json;
        webhook.result = { jsonpath: (webhook.result as Json).jsonPath };
        return store;
      },
      /additionalProperty.*jsonpath/,
    ],
    [
      'a misspelt remoteRef field (propery)',
      () => {
        const externalSecret = first('ExternalSecret');
        const [entry] = (externalSecret.spec as Json).data as Json[];
        (entry as Json).remoteRef = { key: 'database', propery: 'url' };
        return externalSecret;
      },
      /additionalProperty.*propery/,
    ],
    [
      'an ExternalSecret without its secretKey',
      () => {
        const externalSecret = first('ExternalSecret');
        const [entry] = (externalSecret.spec as Json).data as Json[];
        delete (entry as Json).secretKey;
        return externalSecret;
      },
      /secretKey/,
    ],
  ];

  it.each(broken)('%s', (_name, make, expected) => {
    const problems = validationProblems(make());
    expect(problems.join('\n')).toMatch(expected);
  });

  it('refuses a block with a duplicate key, as kubectl does', () => {
    expect(() => parseManifests('apiVersion: v1\nkind: ConfigMap\nkind: Secret\n', 'x')).toThrow(
      /unique/i,
    );
  });

  it('reads 0440 as octal, as kubectl does', () => {
    const [configMap] = parseManifests('apiVersion: v1\nkind: ConfigMap\nmode: 0440\n', 'x');
    expect(configMap?.mode).toBe(0o440);
  });
});

// ---------------------------------------------------------------------------------------------
// What the manifests promise beyond the schemas

/** Every container and init container of every workload on the page. */
function workloadPods(): { name: string; pod: Json; containers: Json[] }[] {
  return manifests
    .filter(({ manifest }) => ['Deployment', 'DaemonSet'].includes(manifest.kind))
    .map(({ manifest }) => {
      const pod = ((manifest.spec as Json).template as Json).spec as Json;
      const containers = [
        ...((pod.initContainers as Json[] | undefined) ?? []),
        ...(pod.containers as Json[]),
      ];
      return { name: String((manifest.metadata as Json).name), pod, containers };
    });
}
const commandOf = (container: Json) => [
  ...((container.command as string[] | undefined) ?? []),
  ...((container.args as string[] | undefined) ?? []),
];
const envOf = (container: Json) =>
  new Map(
    ((container.env as Json[] | undefined) ?? []).map((variable) => [
      String(variable.name),
      variable,
    ]),
  );

describe(`${DOC_PATH}: what the manifests promise`, () => {
  it('reads every token from a mounted Secret through SECRETS_VAULT_TOKEN_FILE, never inline', () => {
    for (const { name, pod, containers } of workloadPods()) {
      const volumes = (pod.volumes as Json[] | undefined) ?? [];
      for (const container of containers) {
        const env = envOf(container);
        expect(env.has('SECRETS_VAULT_TOKEN'), `${name}/${container.name}`).toBe(false);
        const tokenFile = env.get('SECRETS_VAULT_TOKEN_FILE')?.value;
        if (tokenFile === undefined) continue;
        const folder = String(tokenFile).replace(/\/[^/]+$/, '');
        const mount = ((container.volumeMounts as Json[] | undefined) ?? []).find(
          (candidate) => candidate.mountPath === folder,
        );
        expect(mount?.readOnly, `${name}/${container.name} mounts ${folder} read-only`).toBe(true);
        const volume = volumes.find((candidate) => candidate.name === mount?.name);
        expect(volume?.secret, `${name}/${container.name}: ${folder} is a Secret`).toBeDefined();
      }
    }
  });

  it('gives a token file to every container that runs a command reading the vault', () => {
    const readers = workloadPods().flatMap(({ containers }) =>
      containers.filter((container) => {
        const command = commandOf(container);
        return command.includes('secrets-vault') && !command.includes('agent');
      }),
    );
    expect(readers.length).toBeGreaterThan(0);
    for (const container of readers)
      expect(envOf(container).has('SECRETS_VAULT_TOKEN_FILE'), String(container.name)).toBe(true);
  });

  it('runs every container as non-root, on a read-only root file system, with no capability', () => {
    for (const { name, pod, containers } of workloadPods()) {
      expect((pod.securityContext as Json).runAsNonRoot, name).toBe(true);
      for (const container of containers) {
        const context = container.securityContext as Json;
        expect(context.readOnlyRootFilesystem, `${name}/${container.name}`).toBe(true);
        expect(context.allowPrivilegeEscalation, `${name}/${container.name}`).toBe(false);
        expect((context.capabilities as Json).drop, `${name}/${container.name}`).toEqual(['ALL']);
      }
    }
  });

  it('renders into an emptyDir from an init container, and keeps a file current from a native sidecar', () => {
    const pods = workloadPods();
    const initContainers = pods.flatMap(({ pod }) => (pod.initContainers as Json[]) ?? []);
    const once = initContainers.find((container) => container.restartPolicy === undefined);
    expect(commandOf(once ?? {})).toEqual(
      expect.arrayContaining([
        'inject',
        '-i',
        '/templates/app.conf.tmpl',
        '-o',
        '/secrets/app.conf',
      ]),
    );
    const sidecar = initContainers.find((container) => container.restartPolicy === 'Always');
    expect(commandOf(sidecar ?? {})).toEqual(
      expect.arrayContaining(['inject', '--watch', '--watch-interval', '60s']),
    );
  });

  it('points workloads at the agent of their node through the downward API', () => {
    const daemonSet = workloadPods().find(({ containers }) =>
      containers.some((container) => commandOf(container).includes('agent')),
    );
    const agent = daemonSet?.containers[0] ?? {};
    expect(commandOf(agent)).toEqual(expect.arrayContaining(['--listen', '0.0.0.0:8210']));
    expect((agent.ports as Json[])[0]).toMatchObject({ containerPort: 8210, hostPort: 8210 });

    const clients = workloadPods().flatMap(({ containers }) =>
      containers.filter((container) => envOf(container).has('HOST_IP')),
    );
    expect(clients.length).toBeGreaterThan(0);
    for (const container of clients) {
      const names = [...envOf(container).keys()];
      // Kubernetes expands $(HOST_IP) only when HOST_IP is defined earlier in the list.
      expect(names.indexOf('HOST_IP')).toBeLessThan(names.indexOf('SECRETS_VAULT_BASE_URL'));
      expect(envOf(container).get('HOST_IP')?.valueFrom).toEqual({
        fieldRef: { fieldPath: 'status.hostIP' },
      });
      expect(envOf(container).get('SECRETS_VAULT_BASE_URL')?.value).toBe('http://$(HOST_IP):8210');
    }
  });

  it('speaks to users: no link to material they do not have', () => {
    expect(doc).not.toMatch(/\.\.\/shared|design page/i);
  });
});

// ---------------------------------------------------------------------------------------------
// The External Secrets Operator against the mock's real answer

/**
 * Go's text/template as the operator's webhook provider uses it on the URL, the headers and
 * `result.jsonPath`, for the only actions the page uses: `{{ .name.key }}` field lookups.
 */
function executeTemplate(template: string, data: Record<string, Record<string, string>>): string {
  return template.replace(/\{\{(.*?)\}\}/g, (_whole, action: string) => {
    const match = /^\s*\.(\w+)\.(\w+)\s*$/.exec(action);
    if (!match?.[1] || !match[2]) throw new Error(`unsupported template action {{${action}}}`);
    const value = data[match[1]]?.[match[2]];
    if (value === undefined) throw new Error(`the template names .${match[1]}.${match[2]}`);
    return value;
  });
}

/**
 * What the operator makes of the path's result (`extractSecretData`): a list (what a filter
 * gives) stands for its first item, and a string is the value as it is.
 */
function extractSecretData(result: unknown): string {
  if (Array.isArray(result)) {
    if (result.length === 0) throw new Error("filter worked but didn't get any result");
    return extractSecretData(result[0]);
  }
  if (typeof result === 'string') return result;
  return JSON.stringify(result);
}

/** The one object of `kind` on the page. */
function onlyManifest(kind: string): Manifest {
  const found = manifests.filter(({ manifest }) => manifest.kind === kind);
  if (found.length !== 1 || !found[0]) throw new Error(`expected one ${kind} on the page`);
  return found[0].manifest;
}

describe(`${DOC_PATH}: the SecretStore's jsonPath on the service's answer`, () => {
  const mock = createVaultMock();
  let served: ServedVaultMock;
  let vaultId = '';
  const secrets = {
    database: { url: 'postgres://db.internal/app', password: 'pa"ss\\word\nline two' },
    upstream: { 'api-key': 'k-123', password: 'not the database one' },
    'database-replica': { url: 'postgres://replica.internal/app' },
  };

  beforeAll(async () => {
    served = await serveVaultMock(mock);
    const owner = new SecretsVault({ baseUrl: served.url, token: mock.principals.owner.token });
    const vault = await owner.vaults.create({ name: 'app' });
    for (const [name, value] of Object.entries(secrets))
      await owner.secrets.create(vault.id, { name, value });
    vaultId = vault.id;
  });
  afterAll(() => served?.close());

  const store = onlyManifest('SecretStore');
  const webhook = ((store.spec as Json).provider as Json).webhook as {
    url: string;
    method: string;
    headers: Record<string, string>;
    secrets: { name: string; secretRef: { key: string } }[];
    result: { jsonPath: string };
  };
  const externalSecret = onlyManifest('ExternalSecret');

  /** GETs the store's URL (on the mock, for the seeded vault) as the operator sends it. */
  async function storeAnswer(): Promise<unknown> {
    const [auth] = webhook.secrets;
    const data = {
      [auth?.name ?? '']: { [auth?.secretRef.key ?? '']: mock.principals.owner.token },
    };
    // The URL names one vault and uses no remoteRef: one store per vault.
    const url = executeTemplate(webhook.url, {})
      .replace('https://vault.example.com', served.url)
      .replace('/vlt_123/', `/${vaultId}/`);
    expect(new URL(url).pathname).toBe(`/v1/vaults/${vaultId}/secrets/values`);
    const headers = Object.fromEntries(
      Object.entries(webhook.headers).map(([name, value]) => [name, executeTemplate(value, data)]),
    );
    const response = await fetch(url, { method: webhook.method, headers });
    expect(response.status).toBe(200);
    return response.json();
  }

  const picked = (answer: unknown, key: string, property: string) =>
    JSONPath({
      path: executeTemplate(webhook.result.jsonPath, {
        remoteRef: { key, property, version: '', namespace: 'default' },
      }),
      json: answer as Json,
      wrap: true,
    });

  it('names the store the ExternalSecret uses', () => {
    expect((externalSecret.spec as Json).secretStoreRef).toEqual({
      kind: 'SecretStore',
      name: (store.metadata as Json).name,
    });
  });

  it("gives exactly the value of each key the page's ExternalSecret asks for", async () => {
    const answer = await storeAnswer();
    const entries = (externalSecret.spec as Json).data as { remoteRef: Record<string, string> }[];
    expect(entries.length).toBeGreaterThan(0);
    for (const { remoteRef } of entries) {
      const { key = '', property = '' } = remoteRef;
      const expected = (secrets as Record<string, Record<string, string>>)[key]?.[property];
      expect(expected, `${key}/${property} is seeded`).toBeDefined();
      const result = picked(answer, key, property);
      expect(result).toEqual([expected]);
      expect(extractSecretData(result)).toBe(expected);
    }
  });

  it('picks keys with a dash, from the secret named and no other', async () => {
    const answer = await storeAnswer();
    expect(picked(answer, 'upstream', 'api-key')).toEqual(['k-123']);
    expect(picked(answer, 'upstream', 'password')).toEqual(['not the database one']);
    expect(picked(answer, 'database-replica', 'url')).toEqual(['postgres://replica.internal/app']);
    expect(picked(answer, 'database', 'password')).toEqual([secrets.database.password]);
  });

  it('finds nothing for a secret or a key the vault does not have', async () => {
    const answer = await storeAnswer();
    expect(picked(answer, 'missing', 'url')).toEqual([]);
    expect(picked(answer, 'database', 'missing')).toEqual([]);
    expect(() => extractSecretData([])).toThrow(/didn't get any result/);
  });
});
