#!/usr/bin/env node
// CI check of the Kubernetes manifests, offline:
// 1. every document of every k8s/*.yaml is validated against the Kubernetes OpenAPI JSON schema of
//    its apiVersion and kind (kubernetes-models: the upstream schemas compiled to validators), and
//    strictly against the API's types (kubernetes-types, via tsc): no unknown or misspelt field;
// 2. the project's own rules: each service Deployment has resource requests and limits, liveness
//    (/healthz) and readiness (/readyz) probes on its HTTP port, a non-root read-only container, a
//    pinned image, a grace period longer than its drain, and comes with a Service, an HPA and a PDB
//    that select it; NetworkPolicies default-deny and admit outside traffic to the gateway only;
//    the migration Job runs `migrate`; secrets are referenced, never embedded; kustomization lists
//    every manifest but the Job.
// Usage: node tools/ops/check-k8s.mjs [manifest folder, default k8s]   (exit 1 with one line per problem)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = resolve(process.argv[2] ?? join(root, 'k8s'));
const problems = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);
const SERVICES = ['gateway', 'billing', 'generation', 'webhooks'];

const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
if (files.length === 0) problem(relative(root, dir), 'no manifests');

/** Loads the model class for an apiVersion/kind, e.g. apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment. */
async function modelFor(apiVersion, kind) {
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind] ?? module.default;
  } catch {
    return undefined;
  }
}

const objects = [];
for (const file of files) {
  const path = join(dir, file);
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  docs.forEach((doc, index) => {
    const where = `${file}#${index + 1}`;
    if (doc.errors.length > 0) return problem(where, `YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS();
    if (value === null || value === undefined) return;
    objects.push({ where, file, value });
  });
}

// 1. Schema validation.
for (const { where, value } of objects) {
  const { apiVersion, kind } = value;
  if (!apiVersion || !kind) {
    problem(where, 'apiVersion and kind are required');
    continue;
  }
  const Model = await modelFor(apiVersion, kind);
  if (!Model) {
    problem(where, `unknown apiVersion/kind ${apiVersion} ${kind} (no schema)`);
    continue;
  }
  try {
    new Model(value).validate();
  } catch (error) {
    problem(where, `${apiVersion} ${kind} ${value.metadata?.name ?? '?'}: ${error.message}`);
  }
  if (!value.metadata?.name) problem(where, 'metadata.name is required');
}

// 1b. Strict fields: the schemas above accept unknown fields (as the API server does, silently
// dropping them), so a misspelt field would pass. Each object is type-checked as an object
// literal against the Kubernetes API's TypeScript types (kubernetes-types), whose excess-property
// check rejects any field the API does not define, at any depth.
{
  const typeModule = (apiVersion) => {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
    return `kubernetes-types/${group === 'core' ? 'core' : group.replace(/\.k8s\.io$/, '')}/${version}`;
  };
  const work = mkdtempSync(join(tmpdir(), 'k8s-types-'));
  try {
    const lines = objects.map(
      ({ value }, i) => `export const o${i}: import('${typeModule(value.apiVersion)}').${value.kind} = ${JSON.stringify(value, null, 2)};`,
    );
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
        const object = objects[Number(/^export const o(\d+)/.exec(source[index])?.[1] ?? -1)];
        problem(object?.where ?? 'k8s', `${source[line - 1].trim()} -> ${match[2]}`);
      }
      if (!/error TS/.test(output)) problem('k8s', `type check failed: ${output.slice(0, 500)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// 2. Project rules.
const byKind = (kind) => objects.filter((o) => o.value.kind === kind);
const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const podSpecs = [...byKind('Deployment'), ...byKind('Job')].map((o) => ({ ...o, pod: o.value.spec?.template?.spec ?? {} }));

for (const { where, value, pod } of podSpecs) {
  const name = value.metadata.name;
  if (pod.securityContext?.runAsNonRoot !== true) problem(where, `${name}: pod securityContext.runAsNonRoot must be true`);
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const c = `${name}/${container.name}`;
    if (!/^[^:@]+:(?!latest$)[^:@]+$|@sha256:/.test(container.image ?? '')) problem(where, `${c}: image must be pinned to a tag (not latest) or digest`);
    for (const kind of ['requests', 'limits']) {
      for (const resource of ['cpu', 'memory']) {
        if (!container.resources?.[kind]?.[resource]) problem(where, `${c}: resources.${kind}.${resource} is required`);
      }
    }
    const sc = container.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) problem(where, `${c}: allowPrivilegeEscalation must be false`);
    if (sc.readOnlyRootFilesystem !== true) problem(where, `${c}: readOnlyRootFilesystem must be true`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) problem(where, `${c}: capabilities must drop ALL`);
    for (const env of container.env ?? []) {
      if (/URL|PASSWORD|SECRET|TOKEN/.test(env.name) && env.value !== undefined && /DATABASE|PASSWORD|SECRET|TOKEN/.test(env.name)) {
        problem(where, `${c}: ${env.name} must come from a Secret (valueFrom.secretKeyRef), not a literal`);
      }
    }
  }
}

for (const service of SERVICES) {
  const name = `gen-${service}`;
  const deployment = byKind('Deployment').find((o) => o.value.metadata.name === name);
  if (!deployment) {
    problem('k8s', `no Deployment ${name}`);
    continue;
  }
  const where = deployment.where;
  const spec = deployment.value.spec;
  const labels = spec.template.metadata?.labels ?? {};
  if (!matches(spec.selector?.matchLabels, labels)) problem(where, `${name}: selector does not match the pod labels`);
  const container = spec.template.spec.containers?.find((c) => c.name === service);
  if (!container) {
    problem(where, `${name}: no container named ${service}`);
    continue;
  }
  const command = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
  if (!command.includes(`dist/apps/${service}/src/main.js`)) problem(where, `${name}: does not run dist/apps/${service}/src/main.js`);
  if (!existsSync(join(root, 'apps', service, 'src', 'main.ts'))) problem(where, `${name}: apps/${service}/src/main.ts does not exist`);
  const httpPort = container.ports?.find((p) => p.name === 'http')?.containerPort;
  if (!httpPort) problem(where, `${name}: needs a container port named http`);
  const env = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
  const portVariable = service === 'gateway' ? 'PORT' : 'HTTP_PORT';
  if (String(httpPort) !== env[portVariable]) problem(where, `${name}: ${portVariable} (${env[portVariable]}) must equal the http containerPort (${httpPort})`);
  if (!(container.env ?? []).some((e) => e.name === 'DATABASE_URL' && e.valueFrom?.secretKeyRef)) problem(where, `${name}: DATABASE_URL must come from a Secret`);
  for (const [probe, path] of [['livenessProbe', '/healthz'], ['readinessProbe', '/readyz']]) {
    const get = container[probe]?.httpGet;
    if (get?.path !== path || (get.port !== 'http' && get.port !== httpPort)) problem(where, `${name}: ${probe} must GET ${path} on the http port`);
  }
  const delay = Number(env.SHUTDOWN_DELAY_MS ?? 0);
  const timeout = Number(env.SHUTDOWN_TIMEOUT_MS ?? 25_000);
  const grace = spec.template.spec.terminationGracePeriodSeconds ?? 30;
  if (grace * 1000 <= delay + timeout) {
    problem(where, `${name}: terminationGracePeriodSeconds (${grace}) must exceed SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS (${(delay + timeout) / 1000} s)`);
  }
  const svc = byKind('Service').find((o) => matches(o.value.spec?.selector, labels) && o.value.spec?.type !== 'ExternalName');
  if (!svc) problem(where, `${name}: no Service selects it`);
  else if (!svc.value.spec.ports?.some((p) => p.targetPort === 'http' || p.targetPort === httpPort)) problem(svc.where, `${name}: Service must target the http port`);
  const hpa = byKind('HorizontalPodAutoscaler').find((o) => o.value.spec?.scaleTargetRef?.kind === 'Deployment' && o.value.spec.scaleTargetRef.name === name);
  if (!hpa) problem(where, `${name}: no HorizontalPodAutoscaler`);
  else if (!(hpa.value.spec.minReplicas >= 2)) problem(hpa.where, `${name}: minReplicas must be at least 2 (a rollout or a drain keeps one serving)`);
  // The HPA owns the replica count: a `replicas` field would scale the Deployment back at each apply.
  if (hpa && spec.replicas !== undefined) problem(where, `${name}: no replicas field on a Deployment its HorizontalPodAutoscaler scales (each apply would reset it)`);
  const pdb = byKind('PodDisruptionBudget').find((o) => matches(o.value.spec?.selector?.matchLabels, labels));
  if (!pdb) problem(where, `${name}: no PodDisruptionBudget`);
}

// Network policies: default deny for every pod of the system, outside ingress to the gateway only.
const policies = byKind('NetworkPolicy');
const partOf = { 'app.kubernetes.io/part-of': 'generation-service' };
const denyAll = policies.find(
  (p) => matches(p.value.spec?.podSelector?.matchLabels, partOf) && Object.keys(p.value.spec.podSelector.matchLabels).length === 1 &&
    (p.value.spec.policyTypes ?? []).includes('Ingress') && !p.value.spec.ingress,
);
if (!denyAll) problem('network-policies', 'no default-deny ingress policy for app.kubernetes.io/part-of=generation-service');
for (const policy of policies) {
  for (const rule of policy.value.spec?.ingress ?? []) {
    const open = !rule.from || rule.from.some((f) => f.ipBlock);
    if (!open) continue;
    const selected = policy.value.spec.podSelector?.matchLabels ?? {};
    if (selected['app.kubernetes.io/name'] !== 'gen-gateway') {
      problem(policy.where, `${policy.value.metadata.name}: only the gateway may accept traffic from outside the cluster`);
    }
  }
}
for (const ingress of byKind('Ingress')) {
  for (const rule of ingress.value.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) {
      if (path.backend?.service?.name !== 'gen-gateway') problem(ingress.where, `Ingress routes ${path.path} to ${path.backend?.service?.name}: only the gateway is public`);
    }
  }
}
for (const service of byKind('Service')) {
  if (['LoadBalancer', 'NodePort'].includes(service.value.spec?.type) && service.value.metadata.name !== 'gen-gateway') {
    problem(service.where, `${service.value.metadata.name}: only the gateway may be exposed outside the cluster`);
  }
}

// The webhook URL check and the egress policy agree: the ports WEBHOOK_ALLOWED_PORTS lets a webhook URL
// use are exactly the ports the internet egress policy opens to the webhooks pods.
{
  const config = byKind('ConfigMap').find((o) => o.value.metadata.name === 'gen-config');
  const allowed = String(config?.value.data?.WEBHOOK_ALLOWED_PORTS ?? '').split(',').map((p) => p.trim()).filter(Boolean).map(Number).sort((a, b) => a - b);
  const egress = policies.find((p) => JSON.stringify(p.value.spec?.podSelector ?? {}).includes('gen-webhooks') && (p.value.spec?.egress ?? []).some((r) => (r.to ?? []).some((t) => t.ipBlock?.cidr === '0.0.0.0/0')));
  const opened = [...new Set((egress?.value.spec.egress ?? []).filter((r) => (r.to ?? []).some((t) => t.ipBlock?.cidr === '0.0.0.0/0')).flatMap((r) => (r.ports ?? []).map((p) => Number(p.port))))].sort((a, b) => a - b);
  if (allowed.length === 0) problem('gen-config', 'WEBHOOK_ALLOWED_PORTS must list the ports the egress policy opens (empty accepts URLs whose deliveries the policy would drop)');
  else if (!egress) problem('network-policies', 'no egress policy opens the internet to gen-webhooks');
  else if (allowed.join(',') !== opened.join(',')) {
    problem(egress.where, `WEBHOOK_ALLOWED_PORTS (${allowed.join(',')}) must equal the ports ${egress.value.metadata.name} opens to the internet (${opened.join(',')})`);
  }
}

// The migration Job, ConfigMap and Secrets by reference only.
const job = byKind('Job').find((o) => o.value.metadata.name === 'gen-migrate');
if (!job) problem('k8s', 'no migration Job gen-migrate');
else {
  const { initContainers = [], containers = [] } = job.value.spec.template.spec;
  if (!(initContainers[0]?.args ?? []).includes('migrate')) problem(job.where, 'gen-migrate must run the CLI migrate command first (its first init container)');
  const sync = containers.find((c) => (c.args ?? []).join(' ').includes('models sync'));
  if (!sync) problem(job.where, 'gen-migrate must apply the catalogue (CLI models sync) after the migrations');
  const mounted = (job.value.spec.template.spec.volumes ?? []).some((v) => v.configMap?.name === 'gen-catalogue');
  if (!mounted || !byKind('ConfigMap').some((o) => o.value.metadata.name === 'gen-catalogue')) {
    problem(job.where, 'gen-migrate must mount the ConfigMap gen-catalogue, and it must be defined');
  }
}
if (byKind('Secret').length > 0) problem('k8s', 'Secrets must not be committed: reference them (secretKeyRef) and create them out of band');
if (!byKind('ConfigMap').some((o) => o.value.metadata.name === 'gen-config')) problem('k8s', 'no ConfigMap gen-config');
for (const { where, pod, value } of podSpecs) {
  for (const container of pod.containers ?? []) {
    for (const from of container.envFrom ?? []) {
      const name = from.configMapRef?.name;
      if (name && !byKind('ConfigMap').some((o) => o.value.metadata.name === name)) problem(where, `${value.metadata.name}: ConfigMap ${name} is not defined`);
    }
  }
  for (const volume of pod.volumes ?? []) {
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim && !byKind('PersistentVolumeClaim').some((o) => o.value.metadata.name === claim)) problem(where, `${value.metadata.name}: PVC ${claim} is not defined`);
  }
}

// kustomization lists every manifest except the Job (run before each rollout).
const kustomization = join(dir, 'kustomization.yaml');
if (existsSync(kustomization)) {
  const resources = parseAllDocuments(readFileSync(kustomization, 'utf8'))[0].toJS().resources ?? [];
  for (const file of files) {
    const isJobFile = objects.filter((o) => o.file === file).every((o) => o.value.kind === 'Job');
    if (!isJobFile && !resources.includes(file)) problem('kustomization.yaml', `does not list ${file}`);
  }
  for (const resource of resources) if (!files.includes(resource)) problem('kustomization.yaml', `lists missing ${resource}`);
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} problem(s) in ${relative(root, dir) || dir}`);
  process.exit(1);
}
console.log(`Kubernetes manifests OK: ${objects.length} objects in ${files.length} files validated against the Kubernetes schemas`);
