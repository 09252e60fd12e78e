// The project's deployment rules, checked on one rendered install (an overlay, with or without
// components). Each rule says why it exists beside it; docs/operations/kubernetes.md lists them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICES = ['gateway', 'billing', 'generation', 'webhooks'];
export const LABELS = ['name', 'instance', 'version', 'component', 'part-of'].map((k) => `app.kubernetes.io/${k}`);
const POD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'];

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
export function selects(selector, labels = {}) {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key]);
    if (operator === 'NotIn') return !values.includes(labels[key]);
    if (operator === 'Exists') return key in labels;
    return !(key in labels);
  });
  return byLabels && byExpressions;
}

/**
 * The variables the services declare: the README's configuration table, which is written from the
 * settings declarations and checked against them (test/ops/configuration-table.spec.ts).
 */
export function declaredSettings(root) {
  const names = new Set();
  for (const line of readFileSync(join(root, 'README.md'), 'utf8').split('\n')) {
    const cell = /^\| ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+) \|/.exec(line)?.[1];
    for (const m of cell?.matchAll(/`([A-Z][A-Z0-9_]*)`/g) ?? []) names.add(m[1]);
  }
  return names;
}

const containersOf = (pod) => [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
const commandOf = (c) => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
/** An image reference's repository's last path segment: registry.example.com/generation-service-gateway@sha256:... -> generation-service-gateway. */
const imageName = (image = '') => image.replace(/@sha256:[0-9a-f]+$/, '').replace(/:[^/:]+$/, '').split('/').pop();

/** Problems of one render; `context` is { root, overlay, kustomization, production }. */
export function ruleProblems(objects, context) {
  const problems = [];
  const problem = (where, message) => problems.push(`${where}: ${message}`);
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const named = (kind, name) => objects.find((o) => o.kind === kind && o.metadata?.name === name);
  const service = (component) => byKind('Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === component && d.spec?.template?.spec?.containers?.some((c) => c.name === component));
  const at = (o) => `${o.kind} ${o.metadata?.name}`;

  // Labels: the recommended labels on every object and pod template (kubectl get -l, dashboards, and
  // the instance label that keeps two installs apart). The version is each service's own, required on
  // its Deployment and pods (below); objects shared by the services carry none.
  const shared = LABELS.filter((k) => k !== 'app.kubernetes.io/version');
  const versioned = (o) => POD_KINDS.includes(o.kind) && SERVICES.includes(o.metadata?.labels?.['app.kubernetes.io/component']);
  for (const o of objects) {
    const missing = (versioned(o) ? LABELS : shared).filter((k) => !o.metadata?.labels?.[k]);
    if (missing.length) problem(at(o), `labels missing: ${missing.join(', ')}`);
    if (POD_KINDS.includes(o.kind)) {
      const missingPod = (versioned(o) ? LABELS : shared).filter((k) => !o.spec?.template?.metadata?.labels?.[k]);
      if (missingPod.length) problem(at(o), `pod template labels missing: ${missingPod.join(', ')}`);
    }
  }
  // Selectors carry the instance label, so an install never selects another install's pods.
  const instance = (o) => o.metadata?.labels?.['app.kubernetes.io/instance'];
  for (const o of objects) {
    const selector = o.kind === 'Service' ? (o.spec?.type === 'ExternalName' ? null : { matchLabels: o.spec?.selector }) : ['Deployment', 'StatefulSet', 'PodDisruptionBudget', 'ServiceMonitor'].includes(o.kind) ? o.spec?.selector : o.kind === 'NetworkPolicy' ? o.spec?.podSelector : null;
    if (selector && selector.matchLabels?.['app.kubernetes.io/instance'] !== instance(o)) problem(at(o), 'its selector must include app.kubernetes.io/instance (two installs in one namespace)');
  }

  // Pods: non-root, read-only, resources, pinned images, secrets by reference.
  for (const o of objects.filter((x) => POD_KINDS.includes(x.kind))) {
    const pod = o.spec?.template?.spec ?? {};
    if (pod.securityContext?.runAsNonRoot !== true) problem(at(o), 'pod securityContext.runAsNonRoot must be true');
    for (const c of containersOf(pod)) {
      const where = `${at(o)}/${c.name}`;
      if (!/^[^:@]+:(?!latest$)[^:@]+$|@sha256:[0-9a-f]{64}$/.test(c.image ?? '')) problem(where, 'image must be pinned to a tag (not latest) or digest');
      for (const kind of ['requests', 'limits']) for (const r of ['cpu', 'memory']) if (!c.resources?.[kind]?.[r]) problem(where, `resources.${kind}.${r} is required`);
      const sc = c.securityContext ?? {};
      if (sc.allowPrivilegeEscalation !== false) problem(where, 'allowPrivilegeEscalation must be false');
      if (sc.readOnlyRootFilesystem !== true) problem(where, 'readOnlyRootFilesystem must be true');
      if (!(sc.capabilities?.drop ?? []).includes('ALL')) problem(where, 'capabilities must drop ALL');
      for (const env of c.env ?? []) {
        if (env.value !== undefined && /DATABASE|PASSWORD|SECRET|TOKEN|_KEY$/.test(env.name)) problem(where, `${env.name} must come from a Secret (valueFrom.secretKeyRef), not a literal`);
      }
    }
  }

  // Autoscaling: the HPA or KEDA's ScaledObject owns the replica count; a `replicas` field would put
  // it back at each apply. One scaler per Deployment (KEDA makes its own HPA).
  const scalers = [
    ...byKind('HorizontalPodAutoscaler').map((h) => ({ o: h, target: h.spec?.scaleTargetRef })),
    ...byKind('ScaledObject').map((s) => ({ o: s, target: { kind: 'Deployment', ...s.spec?.scaleTargetRef } })),
  ];
  for (const { o, target } of scalers) {
    const d = objects.find((x) => x.kind === (target?.kind ?? 'Deployment') && x.metadata?.name === target?.name);
    if (!d) {
      problem(at(o), `scales ${target?.kind} ${target?.name}, which is not in this install`);
      continue;
    }
    if (d.spec?.replicas !== undefined) problem(at(d), `no replicas field on a Deployment its ${o.kind} scales (each apply would reset it)`);
    const others = scalers.filter((s) => s.o !== o && s.target?.name === target.name);
    if (others.length) problem(at(d), `scaled by both ${[o, ...others.map((s) => s.o)].map(at).join(' and ')}`);
  }

  // The four services: their process, port, probes, drain, Service, scaler, PDB, and the migration first.
  const config = (d) => {
    const ref = d?.spec?.template?.spec?.containers?.[0]?.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
    return named('ConfigMap', ref)?.data ?? {};
  };
  const checkedConfigs = new Set();
  for (const s of SERVICES) {
    const d = service(s);
    if (!d) {
      problem(context.overlay, `no Deployment of the ${s} service (component label ${s}, container ${s})`);
      continue;
    }
    const where = at(d);
    const spec = d.spec;
    const labels = spec.template.metadata?.labels ?? {};
    if (!selects(spec.selector, labels)) problem(where, 'selector does not match the pod labels');
    const pod = spec.template.spec;
    const c = pod.containers.find((x) => x.name === s);
    if (!commandOf(c).includes(`dist/apps/${s}/src/main.js`)) problem(where, `does not run dist/apps/${s}/src/main.js`);
    if (context.root && !existsSync(join(context.root, 'apps', s, 'src', 'main.ts'))) problem(where, `apps/${s}/src/main.ts does not exist`);
    const httpPort = c.ports?.find((p) => p.name === 'http')?.containerPort;
    if (!httpPort) problem(where, 'needs a container port named http');
    const env = Object.fromEntries((c.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
    const portVariable = s === 'gateway' ? 'PORT' : 'HTTP_PORT';
    if (String(httpPort) !== env[portVariable]) problem(where, `${portVariable} (${env[portVariable]}) must equal the http containerPort (${httpPort})`);
    if (!(c.env ?? []).some((e) => e.name === 'DATABASE_URL' && e.valueFrom?.secretKeyRef)) problem(where, 'DATABASE_URL must come from a Secret');
    for (const [probe, path] of [['livenessProbe', '/healthz'], ['readinessProbe', '/readyz']]) {
      const get = c[probe]?.httpGet;
      if (get?.path !== path || (get.port !== 'http' && get.port !== httpPort)) problem(where, `${probe} must GET ${path} on the http port`);
    }
    const delay = Number(env.SHUTDOWN_DELAY_MS ?? 0);
    const timeout = Number(env.SHUTDOWN_TIMEOUT_MS ?? 25_000);
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    if (grace * 1000 <= delay + timeout) problem(where, `terminationGracePeriodSeconds (${grace}) must exceed SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS (${(delay + timeout) / 1000} s)`);
    const svc = byKind('Service').find((x) => x.spec?.type !== 'ExternalName' && selects({ matchLabels: x.spec?.selector }, labels));
    if (!svc) problem(where, 'no Service selects it');
    else if (!svc.spec.ports?.some((p) => p.targetPort === 'http' || p.targetPort === httpPort)) problem(at(svc), 'must target the http port');
    const scaler = scalers.find((x) => x.target?.name === d.metadata.name);
    if (!scaler) problem(where, 'no HorizontalPodAutoscaler or ScaledObject');
    else if (!((scaler.o.spec.minReplicas ?? scaler.o.spec.minReplicaCount) >= 2)) problem(at(scaler.o), 'at least 2 replicas (a rollout or a drain keeps one serving)');
    if (!byKind('PodDisruptionBudget').some((p) => selects(p.spec?.selector, labels))) problem(where, 'no PodDisruptionBudget');

    // Every variable it is given is one the services read: a misspelt or retired name would be
    // ignored (or refused at start). AWS_* belong to the AWS SDK's credential chain.
    if (context.settings) {
      const ref = c.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
      const given = [...Object.keys(ref && !checkedConfigs.has(ref) ? config(d) : {}), ...(c.env ?? []).map((e) => e.name)].filter((n) => !n.startsWith('AWS_'));
      if (ref) checkedConfigs.add(ref);
      for (const name of new Set(given)) {
        if (!context.settings.has(name)) problem(name in config(d) ? `ConfigMap ${ref}` : where, `${name} is not a setting the services declare (README, configuration table)`);
      }
    }
    // Each service its own image (its own version, rolled out and back alone: docs/operations/upgrade.md).
    if (imageName(c.image) !== `generation-service-${s}`) problem(where, `must run its own image generation-service-${s} (has ${c.image})`);
    // The label says the release the manifests were written for: the app's version in this commit.
    const released = context.root && existsSync(join(context.root, 'apps', s, 'package.json')) ? JSON.parse(readFileSync(join(context.root, 'apps', s, 'package.json'), 'utf8')).version : undefined;
    if (released && labels['app.kubernetes.io/version'] !== released) problem(where, `app.kubernetes.io/version (${labels['app.kubernetes.io/version']}) must be apps/${s}/package.json's version (${released})`);
    const tag = /:([^/:@]+)$/.exec(c.image ?? '')?.[1];
    if (tag && /^\d+\.\d+\.\d+/.test(tag) && labels['app.kubernetes.io/version'] !== tag) problem(where, `app.kubernetes.io/version (${labels['app.kubernetes.io/version']}) must be its image's version (${tag})`);
    // The migration before the service: its first init container migrates that service's schema and
    // only it (a rollout of one service never migrates a neighbour's tables), with the service's own
    // image, so Kubernetes starts the service only on a schema as new as its code; the service itself
    // only verifies (no DDL rights).
    const first = pod.initContainers?.[0];
    const migrates = first && commandOf(first);
    if (!migrates || !(migrates.includes(`dist/apps/${s}/src/migrate.js`) || new RegExp(`\\bmigrate --service ${s}\\b`).test(migrates))) {
      problem(where, `the first init container must migrate the ${s} schema only (dist/apps/${s}/src/migrate.js, or the CLI's \`migrate --service ${s}\`)`);
    } else if (first.image !== c.image) problem(where, "the migrate init container must run the service's own image");
    for (const other of pod.initContainers ?? []) {
      const others = SERVICES.filter((x) => x !== s && (commandOf(other).includes(`dist/apps/${x}/`) || new RegExp(`migrate --service ${x}\\b`).test(commandOf(other))));
      if (/\bmigrate\b/.test(commandOf(other)) && !/--service|\/migrate\.js/.test(commandOf(other))) problem(`${where}/${other.name}`, 'migrates every schema: a service migrates its own only');
      if (others.length) problem(`${where}/${other.name}`, `migrates ${others.join(', ')}: a service migrates its own schema only`);
    }
    if (config(d).MIGRATIONS !== 'verify') problem(where, 'MIGRATIONS must be verify in its ConfigMap (the init container migrates; the service role has no DDL rights)');
    if (s === 'generation') {
      const sync = pod.initContainers?.[1];
      const mount = sync?.volumeMounts?.find((m) => sync && commandOf(sync).includes(m.mountPath));
      const volume = pod.volumes?.find((v) => v.name === mount?.name);
      if (!sync || !/(models sync|\/sync-catalogue\.js) --file/.test(commandOf(sync))) problem(where, 'the second init container must apply the catalogue (sync-catalogue.js or the CLI `models sync --file`), after `migrate`');
      else if (sync.image !== c.image) problem(where, "the catalogue sync must run generation's own image (the catalogue is written by the version that runs on it)");
      else if (!volume?.configMap || !named('ConfigMap', volume.configMap.name)) problem(where, 'the catalogue sync must read its file from a ConfigMap of this install');
    }
  }

  // References resolve inside the install (ConfigMaps, Secrets or ExternalSecrets, PVCs).
  const secretNames = new Set([...byKind('Secret').map((x) => x.metadata.name), ...byKind('ExternalSecret').map((x) => x.spec?.target?.name ?? x.metadata.name)]);
  for (const o of objects.filter((x) => POD_KINDS.includes(x.kind))) {
    const pod = o.spec.template.spec;
    for (const c of containersOf(pod)) {
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef && !named('ConfigMap', from.configMapRef.name)) problem(at(o), `ConfigMap ${from.configMapRef.name} is not in this install`);
        if (from.secretRef && !from.secretRef.optional && !secretNames.has(from.secretRef.name)) problem(at(o), `Secret ${from.secretRef.name} is not in this install`);
      }
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !ref.optional && !secretNames.has(ref.name)) problem(at(o), `Secret ${ref.name} (${e.name}) is not in this install`);
      }
    }
    for (const v of pod.volumes ?? []) {
      if (v.persistentVolumeClaim && !named('PersistentVolumeClaim', v.persistentVolumeClaim.claimName)) problem(at(o), `PVC ${v.persistentVolumeClaim.claimName} is not in this install`);
      if (v.configMap && !named('ConfigMap', v.configMap.name)) problem(at(o), `ConfigMap ${v.configMap.name} is not in this install`);
    }
  }

  // Storage: production keeps outputs in object storage, with no volume shared by the pods; the local
  // driver needs the gateway and generation to mount the same volume at STORAGE_DIR.
  const cfg = config(service('generation'));
  const claims = (d) => (d?.spec?.template?.spec?.volumes ?? []).filter((v) => v.persistentVolumeClaim).map((v) => v.persistentVolumeClaim.claimName);
  for (const pvc of byKind('PersistentVolumeClaim')) {
    if ((pvc.spec?.accessModes ?? []).includes('ReadWriteMany') && context.production) problem(at(pvc), 'no ReadWriteMany volume in production: outputs go to object storage (STORAGE_DRIVER=s3)');
  }
  if (context.production) {
    if (cfg.STORAGE_DRIVER !== 's3') problem(context.overlay, `production must set STORAGE_DRIVER=s3 (has ${cfg.STORAGE_DRIVER ?? 'none'})`);
    for (const s of ['gateway', 'generation']) if (claims(service(s)).length) problem(at(service(s)), 'mounts a PersistentVolumeClaim: in production outputs live in the bucket');
    for (const o of objects.filter((x) => POD_KINDS.includes(x.kind) && x.metadata.labels?.['app.kubernetes.io/part-of'] === 'generation-service')) {
      for (const c of containersOf(o.spec.template.spec)) if (c.image?.includes('generation-service') && !/@sha256:[0-9a-f]{64}$/.test(c.image)) problem(`${at(o)}/${c.name}`, 'production pins the image by digest (images: digest:)');
    }
    for (const g of context.kustomization.secretGenerator ?? []) if (g.literals?.length) problem(context.overlay, `secretGenerator ${g.name}: no literal secrets in production (envs files that are never committed)`);
  } else if (cfg.STORAGE_DRIVER === 'local' || cfg.STORAGE_DRIVER === undefined) {
    const dir = cfg.STORAGE_DIR;
    const mounted = (s) => service(s)?.spec.template.spec.containers.find((c) => c.name === s)?.volumeMounts?.find((m) => m.mountPath === dir);
    const volumeOf = (s) => service(s)?.spec.template.spec.volumes?.find((v) => v.name === mounted(s)?.name)?.persistentVolumeClaim?.claimName;
    if (!dir || !volumeOf('generation') || volumeOf('generation') !== volumeOf('gateway')) problem(context.overlay, 'with the local driver, generation and the gateway must mount one PersistentVolumeClaim at STORAGE_DIR');
  }

  // Network policies: default deny for every pod of the install, outside traffic to the gateway only.
  const policies = byKind('NetworkPolicy');
  const partOf = { 'app.kubernetes.io/part-of': 'generation-service' };
  if (!policies.some((p) => selects(p.spec?.podSelector, { ...partOf, 'app.kubernetes.io/instance': instance(p) }) && !p.spec.podSelector.matchExpressions && (p.spec.policyTypes ?? []).includes('Ingress') && !p.spec.ingress)) {
    problem(context.overlay, 'no default-deny ingress policy for every pod of the install');
  }
  const gatewayPod = service('gateway')?.spec.template.metadata.labels ?? {};
  for (const p of policies) {
    for (const rule of p.spec?.ingress ?? []) {
      if ((!rule.from || rule.from.some((f) => f.ipBlock)) && !selects(p.spec.podSelector, gatewayPod)) problem(at(p), 'only the gateway may accept traffic from outside the cluster');
    }
  }
  const gatewayService = byKind('Service').find((x) => selects({ matchLabels: x.spec?.selector }, gatewayPod));
  for (const ing of byKind('Ingress')) {
    for (const rule of ing.spec?.rules ?? []) for (const path of rule.http?.paths ?? []) {
      if (path.backend?.service?.name !== gatewayService?.metadata.name) problem(at(ing), `routes ${path.path} to ${path.backend?.service?.name}: only the gateway is public`);
    }
  }
  for (const svc of byKind('Service')) {
    if (['LoadBalancer', 'NodePort'].includes(svc.spec?.type) && svc !== gatewayService) problem(at(svc), 'only the gateway may be exposed outside the cluster');
  }

  // The webhook URL check and the egress policy agree: WEBHOOK_ALLOWED_PORTS lists exactly the ports
  // the policies open to the internet for the webhooks pods (else an accepted URL times out).
  const webhooksPod = service('webhooks')?.spec.template.metadata.labels;
  if (webhooksPod) {
    const allowed = String(config(service('webhooks')).WEBHOOK_ALLOWED_PORTS ?? '').split(',').map((p) => p.trim()).filter(Boolean).map(Number).sort((a, b) => a - b);
    const internet = policies.filter((p) => selects(p.spec?.podSelector, webhooksPod)).flatMap((p) => (p.spec.egress ?? []).filter((r) => (r.to ?? []).some((t) => t.ipBlock?.cidr === '0.0.0.0/0')).map((r) => ({ p, r })));
    const opened = [...new Set(internet.flatMap(({ r }) => (r.ports ?? []).map((x) => Number(x.port))))].sort((a, b) => a - b);
    if (allowed.length === 0) problem(context.overlay, 'WEBHOOK_ALLOWED_PORTS must list the ports the egress policy opens (empty accepts URLs whose deliveries the policy would drop)');
    else if (!internet.length) problem(context.overlay, 'no egress policy opens the internet to the webhooks pods');
    else if (allowed.join(',') !== opened.join(',')) problem(at(internet[0].p), `WEBHOOK_ALLOWED_PORTS (${allowed.join(',')}) must equal the ports the egress policies open to the internet for webhooks (${opened.join(',')})`);
  }

  // Alerts and scaling read metrics the services serve; scaled targets exist (above).
  for (const so of byKind('ScaledObject')) {
    for (const t of so.spec.triggers ?? []) {
      if (t.type === 'prometheus' && !/app_kubernetes_io_instance="[^"]+"/.test(t.metadata?.query ?? '')) problem(at(so), `trigger ${t.name}: the query must select this install (app_kubernetes_io_instance)`);
      if (t.type === 'prometheus' && /INSTANCE/.test(t.metadata?.query ?? '')) problem(at(so), `trigger ${t.name}: the instance was not written into the query (the overlay's replacements)`);
    }
  }
  return problems;
}

/** Names two installs would fight over: objects (kind/name) and names referenced but made elsewhere. */
export function claimedNames(objects) {
  const names = new Set(objects.map((o) => `${o.kind}/${o.metadata?.name}`));
  for (const o of objects.filter((x) => POD_KINDS.includes(x.kind))) {
    for (const c of containersOf(o.spec.template.spec)) {
      for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.add(`Secret/${e.valueFrom.secretKeyRef.name}`);
      for (const f of c.envFrom ?? []) if (f.secretRef) names.add(`Secret/${f.secretRef.name}`);
    }
  }
  return names;
}
