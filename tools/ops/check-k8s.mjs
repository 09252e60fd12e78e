#!/usr/bin/env node
// CI check of the Kubernetes manifests, offline (no cluster):
// 1. renders every overlay of k8s/overlays, alone and with every component of k8s/components, with
//    `kubectl kustomize` (in a scratch copy: secret files an operator writes come from their
//    *.env.example);
// 2. validates every rendered object against the Kubernetes JSON schema of its kind and strictly
//    against the API's types (no unknown or misspelt field), and the operators' kinds (ServiceMonitor,
//    PrometheusRule, ScaledObject, ExternalSecret) against their required shape (k8s/schemas.mjs);
// 3. checks the project's rules on each render (k8s/rules.mjs): the five app.kubernetes.io labels on
//    every object and pod template, no `replicas` under an HPA or ScaledObject, each service on its
//    own image and, as its first init container, the migration of its own schema only, the catalogue synced from its ConfigMap, the egress
//    policy's ports equal WEBHOOK_ALLOWED_PORTS, no ReadWriteMany volume and a digest-pinned image in
//    production, every variable given to a service declared by the services, probes, limits,
//    non-root read-only containers, only the gateway public;
// 4. renders each overlay again as a second install (another namePrefix and instance label) and
//    fails if any object or referenced Secret name of the two collides.
// Usage: node tools/ops/check-k8s.mjs [manifest folder, default k8s]   (exit 1 with one line per problem)
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claimedNames, declaredSettings, ruleProblems } from './k8s/rules.mjs';
import { kustomize, overlaysOf, renders, schemaProblems, scratchCopy, secondInstall, strictFieldProblems } from './k8s/index.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = resolve(process.argv[2] ?? join(root, 'k8s'));
const problems = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);

const { copy, dispose } = scratchCopy(dir);
let count = 0;
try {
  if (overlaysOf(copy).length === 0) problem(relative(root, dir) || dir, 'no overlays (overlays/<name>/kustomization.yaml)');
  const rendered = [];
  for (const r of renders(copy)) {
    const { objects, error } = kustomize(r.folder);
    if (error) {
      problem(r.name, `kubectl kustomize failed: ${error}`);
      continue;
    }
    rendered.push({ ...r, objects });
  }

  // Schemas: each distinct object once.
  const distinct = new Map();
  for (const r of rendered) for (const o of r.objects) {
    const key = JSON.stringify(o);
    if (!distinct.has(key)) distinct.set(key, { value: o, where: `${r.name}: ${o.kind} ${o.metadata?.name}` });
  }
  const items = [...distinct.values()];
  for (const { value, where } of items) for (const message of await schemaProblems(value)) problem(where, message);
  for (const [index, message] of strictFieldProblems(root, items.map((i) => i.value))) problem(items[index]?.where ?? 'k8s', message);

  // Rules, per render.
  const settings = declaredSettings(root);
  for (const r of rendered) {
    const production = r.overlay === 'production';
    for (const line of ruleProblems(r.objects, { root, overlay: r.name, kustomization: r.kustomization, production, settings })) problems.push(`${r.name}: ${line}`);
    count += r.objects.length;
  }

  // Two installs in one namespace: each overlay beside a second install of itself, and beside every other overlay.
  const installs = overlaysOf(copy)
    .filter((o) => !o.includes('--'))
    .map((o) => ({ name: o, objects: rendered.find((r) => r.name === o)?.objects }))
    .filter((i) => i.objects);
  for (const install of [...installs]) {
    const { objects, error } = kustomize(secondInstall(copy, install.name));
    if (error) problem(`${install.name} (second install)`, `kubectl kustomize failed: ${error}`);
    else installs.push({ name: `${install.name} (second install)`, objects });
  }
  for (let i = 0; i < installs.length; i++) {
    for (let j = i + 1; j < installs.length; j++) {
      const theirs = claimedNames(installs[j].objects);
      const shared = [...claimedNames(installs[i].objects)].filter((n) => theirs.has(n));
      if (shared.length) problem(`${installs[i].name} and ${installs[j].name}`, `two installs in one namespace collide on ${shared.join(', ')}`);
    }
  }
  var summary = `${rendered.length} renders (${rendered.map((r) => r.name).join('; ')}), ${count} objects, ${items.length} distinct; ${installs.length} installs side by side`;
} finally {
  dispose();
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} problem(s) in ${relative(root, dir) || dir}`);
  process.exit(1);
}
console.log(`Kubernetes manifests OK: ${summary}; validated against the Kubernetes schemas and the deployment rules`);
