// Offline schema validation of rendered objects:
// - built-in kinds: the Kubernetes OpenAPI JSON schema of their apiVersion and kind (kubernetes-models),
//   then strictly against the API's TypeScript types (kubernetes-types, via tsc), whose excess-property
//   check rejects any field the API does not define, at any depth (the schemas alone accept unknown
//   fields, as the API server does, silently dropping them);
// - the operators' kinds (ServiceMonitor, PrometheusRule, ScaledObject, ExternalSecret): no CRD schema
//   can be installed here, so each is checked against the required shape of the fields this project
//   uses (JSON schemas below, from each CRD's documentation), unknown fields refused.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';

const str = { type: 'string', minLength: 1 };
const obj = (properties, required = [], extra = false) => ({ type: 'object', properties, required, additionalProperties: extra });
const labels = { type: 'object', additionalProperties: { type: 'string' } };
const metadata = obj({ name: str, namespace: str, labels, annotations: labels }, ['name']);
const selector = obj({
  matchLabels: labels,
  matchExpressions: { type: 'array', items: obj({ key: str, operator: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }, values: { type: 'array', items: str } }, ['key', 'operator']) },
});
const crd = (apiVersion, kind, spec) => obj({ apiVersion: { const: apiVersion }, kind: { const: kind }, metadata, spec }, ['apiVersion', 'kind', 'metadata', 'spec']);

const CRD_SCHEMAS = {
  'monitoring.coreos.com/v1 ServiceMonitor': crd('monitoring.coreos.com/v1', 'ServiceMonitor', obj({
    selector,
    namespaceSelector: obj({ any: { type: 'boolean' }, matchNames: { type: 'array', items: str } }),
    jobLabel: str,
    targetLabels: { type: 'array', items: str },
    podTargetLabels: { type: 'array', items: str },
    endpoints: {
      type: 'array', minItems: 1,
      items: obj({ port: str, path: { type: 'string', pattern: '^/' }, interval: { type: 'string', pattern: '^[0-9]+(ms|s|m|h)$' }, scrapeTimeout: str, scheme: { enum: ['http', 'https'] }, honorLabels: { type: 'boolean' } }, ['port']),
    },
  }, ['selector', 'endpoints'])),
  'monitoring.coreos.com/v1 PrometheusRule': crd('monitoring.coreos.com/v1', 'PrometheusRule', obj({
    groups: {
      type: 'array', minItems: 1,
      items: obj({
        name: str,
        interval: str,
        rules: {
          type: 'array', minItems: 1,
          items: {
            ...obj({ alert: str, record: str, expr: str, for: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' }, labels, annotations: labels }, ['expr']),
            oneOf: [{ required: ['alert'] }, { required: ['record'] }],
          },
        },
      }, ['name', 'rules']),
    },
  }, ['groups'])),
  'keda.sh/v1alpha1 ScaledObject': crd('keda.sh/v1alpha1', 'ScaledObject', obj({
    scaleTargetRef: obj({ apiVersion: str, kind: str, name: str }, ['name']),
    minReplicaCount: { type: 'integer', minimum: 0 },
    maxReplicaCount: { type: 'integer', minimum: 1 },
    pollingInterval: { type: 'integer', minimum: 1 },
    cooldownPeriod: { type: 'integer', minimum: 0 },
    advanced: { type: 'object' },
    triggers: {
      type: 'array', minItems: 1,
      items: obj({ type: str, name: str, metricType: { enum: ['AverageValue', 'Value', 'Utilization'] }, metadata: { type: 'object', additionalProperties: { type: 'string' } }, authenticationRef: obj({ name: str, kind: str }, ['name']) }, ['type', 'metadata']),
    },
  }, ['scaleTargetRef', 'triggers'])),
  'external-secrets.io/v1beta1 ExternalSecret': crd('external-secrets.io/v1beta1', 'ExternalSecret', obj({
    refreshInterval: str,
    secretStoreRef: obj({ kind: { enum: ['SecretStore', 'ClusterSecretStore'] }, name: str }, ['name']),
    target: obj({ name: str, creationPolicy: { enum: ['Owner', 'Orphan', 'Merge', 'None'] }, deletionPolicy: str, template: { type: 'object' } }),
    data: { type: 'array', items: obj({ secretKey: str, remoteRef: obj({ key: str, property: str, version: str }, ['key']) }, ['secretKey', 'remoteRef']) },
    dataFrom: { type: 'array', items: obj({ extract: obj({ key: str, property: str, version: str }, ['key']), find: { type: 'object' } }) },
  }, ['secretStoreRef'])),
};

const ajv = new Ajv({ allErrors: true, strict: false });
const crdValidators = Object.fromEntries(Object.entries(CRD_SCHEMAS).map(([k, schema]) => [k, ajv.compile(schema)]));
export const CRD_KINDS = Object.keys(CRD_SCHEMAS);

async function modelFor(apiVersion, kind) {
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind] ?? module.default;
  } catch {
    return undefined;
  }
}

/** Schema problems of one object (built-in: Kubernetes schema; operator kinds: their shape). */
export async function schemaProblems(value) {
  const { apiVersion, kind } = value;
  if (!apiVersion || !kind) return ['apiVersion and kind are required'];
  const validate = crdValidators[`${apiVersion} ${kind}`];
  if (validate) {
    if (validate(value)) return [];
    return validate.errors.map((e) => `${apiVersion} ${kind} ${value.metadata?.name ?? '?'}: ${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`);
  }
  const Model = await modelFor(apiVersion, kind);
  if (!Model) return [`unknown apiVersion/kind ${apiVersion} ${kind} (no schema)`];
  const problems = [];
  // kustomize wraps a generated Secret's base64 at 70 columns; the API server's decoder skips the newlines.
  if (kind === 'Secret' && value.data) value = { ...value, data: Object.fromEntries(Object.entries(value.data).map(([k, v]) => [k, String(v).replace(/\s+/g, '')])) };
  try {
    new Model(value).validate();
  } catch (error) {
    problems.push(`${apiVersion} ${kind} ${value.metadata?.name ?? '?'}: ${error.message}`);
  }
  if (!value.metadata?.name) problems.push('metadata.name is required');
  return problems;
}

/**
 * Strict fields for the built-in kinds: one tsc run over every object (deduplicated), each an object
 * literal typed with its kubernetes-types type. Returns [index into `items`, message] pairs.
 */
export function strictFieldProblems(root, items) {
  const typeModule = (apiVersion) => {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
    return `kubernetes-types/${group === 'core' ? 'core' : group.replace(/\.k8s\.io$/, '')}/${version}`;
  };
  const builtIn = items.map((value, i) => [value, i]).filter(([value]) => !crdValidators[`${value.apiVersion} ${value.kind}`]);
  const work = mkdtempSync(join(tmpdir(), 'k8s-types-'));
  const found = [];
  try {
    const lines = builtIn.map(([value, i]) => `export const o${i}: import('${typeModule(value.apiVersion)}').${value.kind} = ${JSON.stringify(value, null, 2)};`);
    writeFileSync(join(work, 'manifests.ts'), lines.join('\n') + '\n');
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'commonjs', moduleResolution: 'node10', types: [], baseUrl: root, typeRoots: [], paths: { 'kubernetes-types/*': [join(root, 'node_modules/kubernetes-types/*')] } },
        files: [join(work, 'manifests.ts')],
      }),
    );
    try {
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(work, 'tsconfig.json')], { encoding: 'utf8' });
    } catch (error) {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
      const source = readFileSync(join(work, 'manifests.ts'), 'utf8').split('\n');
      for (const match of output.matchAll(/manifests\.ts\((\d+),\d+\): error TS\d+: ([^\n]+)/g)) {
        const line = Number(match[1]);
        let index = line - 1;
        while (index > 0 && !source[index].startsWith('export const o')) index--;
        found.push([Number(/^export const o(\d+)/.exec(source[index])?.[1] ?? -1), `${source[line - 1].trim()} -> ${match[2]}`]);
      }
      if (!/error TS/.test(output)) found.push([-1, `type check failed: ${output.slice(0, 500)}`]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return found;
}
