import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOGUE, engineKinds, parseCatalogueFile } from '@gen/generation';

const ROOT = join(__dirname, '..', '..');

function run(script: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(ROOT, 'tools', 'ops', script), ...args], { encoding: 'utf8', timeout: 170_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The CI checks of the deployment files reject what they are meant to reject (CI runs them on the real files). */
describe('ops checks', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'ops-checks-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('check-k8s renders every overlay, alone and with every component, and passes them', () => {
    const result = run('check-k8s.mjs');
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain('validated against the Kubernetes schemas');
    for (const render of ['dev;', 'production;', 'production + components (external-secrets, keda, monitoring, payments)']) expect(result.output).toContain(render);
    expect(result.output).toContain('4 installs side by side');
  }, 180_000);

  it('check-k8s fails each rule on a manifest that breaks it', () => {
    const dir = join(work, 'k8s');
    cpSync(join(ROOT, 'k8s'), dir, { recursive: true });
    const edit = (file: string, from: string | RegExp, to: string) => {
      const before = readFileSync(join(dir, file), 'utf8');
      const after = before.replace(from, to);
      expect(after).not.toEqual(before);
      writeFileSync(join(dir, file), after);
    };
    // Schemas: a wrong type, an unknown field, a missing limit, a misnamed probe, a public non-gateway Service.
    edit('base/gateway.yaml', 'revisionHistoryLimit: 5', 'revisionHistoryLimit: five');
    edit('base/billing.yaml', 'maxUnavailable: 1', 'maxUnavailble: 1');
    edit('base/generation.yaml', /limits: \{ cpu: "2", memory: 1Gi \}/, 'limits: { cpu: "2" }');
    edit('base/webhooks.yaml', 'path: /readyz', 'path: /ready');
    edit('base/webhooks.yaml', 'type: ClusterIP', 'type: LoadBalancer');
    // Replicas under an HPA, and under KEDA's ScaledObject (the components render).
    edit('base/billing.yaml', 'revisionHistoryLimit: 5', 'replicas: 2\n  revisionHistoryLimit: 5');
    edit('base/generation.yaml', 'revisionHistoryLimit: 5', 'replicas: 2\n  revisionHistoryLimit: 5');
    // A label missing from an object.
    edit('base/service-account.yaml', ', app.kubernetes.io/component: workload-identity', '');
    // The migration no longer first: the gateway's migrate init container patch dropped; billing's
    // migrates every schema (the CLI's plain `migrate`), webhooks' runs another image.
    edit('base/kustomization.yaml', '  - path: migrate-init/gateway.yaml\n', '');
    edit('base/migrate-init/billing.yaml', 'args: ["dist/apps/billing/src/migrate.js"]', 'args: ["dist/apps/cli/src/main.js", "migrate"]');
    edit('base/migrate-init/webhooks.yaml', 'image: generation-service-webhooks:1.0.0', 'image: generation-service-cli:1.0.0');
    // A service on another service's image.
    edit('base/generation.yaml', 'image: generation-service-generation:1.0.0', 'image: generation-service-gateway:1.0.0');
    // A service image at another version than its version label (dev), a label that is not the app's version.
    edit('overlays/dev/kustomization.yaml', '  - name: generation-service-billing\n    newTag: 1.0.0', '  - name: generation-service-billing\n    newTag: 1.1.0');
    edit('base/webhooks.yaml', '      labels: { app.kubernetes.io/name: gen-webhooks, app.kubernetes.io/component: webhooks, app.kubernetes.io/version: "1.0.0" }', '      labels: { app.kubernetes.io/name: gen-webhooks, app.kubernetes.io/component: webhooks, app.kubernetes.io/version: "0.9.0" }');
    // Webhook ports the egress policy does not open.
    edit('base/config.env', 'WEBHOOK_ALLOWED_PORTS=443', 'WEBHOOK_ALLOWED_PORTS=443,8443');
    // A variable no service reads (misspelt).
    edit('base/config.env', 'LOG_LEVEL=info', 'LOG_LEVL=info');
    // A ReadWriteMany volume in production, and a tag instead of a digest.
    writeFileSync(
      join(dir, 'overlays/production/shared.yaml'),
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: shared\n  labels: { app.kubernetes.io/name: generation-service, app.kubernetes.io/component: outputs }\nspec:\n  accessModes: ["ReadWriteMany"]\n  resources:\n    requests: { storage: 1Gi }\n',
    );
    edit('overlays/production/kustomization.yaml', '  - egress-object-storage.yaml\n', '  - egress-object-storage.yaml\n  - shared.yaml\n');
    edit('overlays/production/kustomization.yaml', /digest: sha256:0+/, 'newTag: 1.0.0');
    // A secret written into the production kustomization.
    edit('overlays/production/kustomization.yaml', 'envs: [provider-credentials.env]', 'literals: [REPLICATE_API_TOKEN=r8_committed]');
    // Two installs named alike: dev takes production's prefix and instance.
    edit('overlays/dev/kustomization.yaml', 'namePrefix: gen-dev-', 'namePrefix: gen-');
    edit('overlays/dev/kustomization.yaml', 'app.kubernetes.io/instance: gen-dev', 'app.kubernetes.io/instance: gen');
    // Selectors without the instance label (dev), KEDA queries the overlay no longer scopes (production).
    edit('overlays/dev/kustomization.yaml', /(instance: gen \}\n    includeSelectors: )true/, '$1false');
    edit('overlays/production/kustomization.yaml', /replacements:[\s\S]*$/, '');
    // The local driver with the outputs volume mounted elsewhere than STORAGE_DIR (dev).
    edit('overlays/dev/config.env', 'STORAGE_DIR=/var/lib/gen/outputs', 'STORAGE_DIR=/srv/outputs');
    // The operators' kinds: an unknown field on the ScaledObject, a ServiceMonitor endpoint without a port.
    edit('components/keda/scaled-object.yaml', '  minReplicaCount: 2', '  minReplicaCount: 2\n  maxReplicas: 3');
    edit('components/monitoring/service-monitor.yaml', '    - port: http\n', '    - targetPort: 8080\n');
    const result = run('check-k8s.mjs', dir);
    expect(result.code).toBe(1);
    for (const expected of [
      'data/spec/revisionHistoryLimit must be integer',
      "'\"maxUnavailble\"' does not exist in type 'PodDisruptionBudgetSpec'",
      'Deployment gen-generation/generation: resources.limits.memory is required',
      'Deployment gen-webhooks: readinessProbe must GET /readyz on the http port',
      'Service gen-webhooks: only the gateway may be exposed outside the cluster',
      'Deployment gen-billing: no replicas field on a Deployment its HorizontalPodAutoscaler scales',
      'Deployment gen-generation: no replicas field on a Deployment its ScaledObject scales',
      'ServiceAccount gen-workload: labels missing: app.kubernetes.io/component',
      'Deployment gen-gateway: the first init container must migrate the gateway schema only (dist/apps/gateway/src/migrate.js',
      'Deployment gen-billing: the first init container must migrate the billing schema only',
      'Deployment gen-billing/migrate: migrates every schema: a service migrates its own only',
      "Deployment gen-webhooks: the migrate init container must run the service's own image",
      'Deployment gen-generation: must run its own image generation-service-generation',
      "dev: Deployment gen-billing: app.kubernetes.io/version (1.0.0) must be its image's version (1.1.0)",
      "Deployment gen-webhooks: app.kubernetes.io/version (0.9.0) must be apps/webhooks/package.json's version (1.0.0)",
      'WEBHOOK_ALLOWED_PORTS (443,8443) must equal the ports the egress policies open to the internet for webhooks (443)',
      'PersistentVolumeClaim gen-shared: no ReadWriteMany volume in production',
      'production pins the image by digest',
      'secretGenerator provider-credentials: no literal secrets in production',
      'two installs in one namespace collide on',
      'ScaledObject gen-generation: /spec must NOT have additional properties (maxReplicas)',
      "ServiceMonitor gen-services: /spec/endpoints/0 must have required property 'port'",
      'Deployment gen-gateway: its selector must include app.kubernetes.io/instance',
      'ScaledObject gen-generation: trigger queued-jobs: the instance was not written into the query',
      'dev: with the local driver, generation and the gateway must mount one PersistentVolumeClaim at STORAGE_DIR',
      'LOG_LEVL is not a setting the services declare',
    ]) {
      expect(result.output).toContain(expected);
    }
  }, 180_000);

  it('check-k8s requires the catalogue sync after the migration, from a ConfigMap of the install', () => {
    const dir = join(work, 'k8s');
    cpSync(join(ROOT, 'k8s'), dir, { recursive: true });
    const file = join(dir, 'base/catalogue-sync-init.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('sync-catalogue.js"', 'main.js"'));
    const result = run('check-k8s.mjs', dir);
    expect(result.code).toBe(1);
    expect(result.output).toContain('the second init container must apply the catalogue (sync-catalogue.js or the CLI `models sync --file`), after `migrate`');
  }, 180_000);

  it('the catalogue the generation pods sync is valid and is the seed catalogue, less what the previous generation release refuses', () => {
    const problems: string[] = [];
    const models = parseCatalogueFile(JSON.parse(readFileSync(join(ROOT, 'k8s', 'base', 'catalogue.json'), 'utf8')), engineKinds(), problems);
    expect(problems).toEqual([]);
    // `openai` blocks: generation 1.0.0 refuses the field, and its catalogue sync (an init container
    // run with the generation image) must pass on these manifests too, for a rollback of that service
    // alone (docs/operations/catalogue.md).
    // Nor `batch_credits` (docs/design/batches.md): an optional field the older generation refuses too.
    expect(models).toEqual(CATALOGUE.map(({ openai: _newer, batchCredits: _newest, ...model }) => model));
  });

  it("check-docker holds each service's image to its own app and the libs it requires, and compose to the service's own image", () => {
    // dist/ exists only after `npm run build`; CI builds before this suite's checks run.
    if (run('check-docker.mjs').output.includes('run npm run build first')) return;
    for (const folder of ['dist', 'apps', 'libs', 'tools']) symlinkSync(join(ROOT, folder), join(work, folder));
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json', '.dockerignore']) symlinkSync(join(ROOT, file), join(work, file));
    cpSync(join(ROOT, 'docker'), join(work, 'docker'), { recursive: true });
    const edit = (file: string, from: string, to: string) => {
      const before = readFileSync(join(work, file), 'utf8');
      expect(before).toContain(from);
      writeFileSync(join(work, file), before.replace(from, to));
    };
    edit('docker/billing.Dockerfile', 'COPY --from=build /app/dist/libs/persistence ./dist/libs/persistence\n', 'COPY --from=build /app/dist/apps/generation ./dist/apps/generation\n');
    edit('docker/webhooks.Dockerfile', 'COPY --from=build /app/dist/libs/config ./dist/libs/config\n', 'COPY --from=build /app/dist/libs/config ./dist/libs/config\nCOPY --from=build /app/dist/libs/media-synth ./dist/libs/media-synth\n');
    edit('docker/compose.yml', 'dockerfile: docker/gateway.Dockerfile', 'dockerfile: docker/cli.Dockerfile');
    rmSync(join(work, 'docker', 'generation.Dockerfile'));
    const result = run('check-docker.mjs', work);
    expect(result.code).toBe(1);
    for (const expected of [
      'docker/billing.Dockerfile: copies apps/generation: a service\'s image carries its own app only',
      'docker/billing.Dockerfile: does not copy dist/libs/persistence, which dist/apps/billing requires',
      'docker/webhooks.Dockerfile: copies dist/libs/media-synth, which dist/apps/webhooks does not require',
      'docker/generation.Dockerfile: the generation service has no image of its own',
      'services.gateway must build its own image (build.dockerfile docker/gateway.Dockerfile, has docker/cli.Dockerfile)',
    ]) {
      expect(result.output).toContain(expected);
    }
  });

  it('check-docker passes the repository files (after a build) and rejects a bad Dockerfile and compose file', () => {
    const repo = run('check-docker.mjs');
    // dist/ exists only after `npm run build`; CI builds before this suite's checks run.
    if (repo.code !== 0) expect(repo.output).toContain('run npm run build first');
    mkdirSync(join(work, 'docker'));
    writeFileSync(
      join(work, 'docker', 'Dockerfile'),
      ['FROM node:20.19-bookworm-slim AS old', 'FROM node:23.1-slim AS odd', 'FROM node:latest', 'ADD src /app', 'RUN npm install', 'COPY missing.txt /app/', 'COPY --from=ghost /a /b', 'CMD ["node"]'].join('\n'),
    );
    writeFileSync(join(work, 'docker', 'compose.yml'), 'services:\n  gateway:\n    image: x:1\n    ports: ["3000:3000"]\n  billing:\n    image: x:1\n    ports: ["8080:8080"]\n    stop_grace_period: soon\n');
    const result = run('check-docker.mjs', work);
    expect(result.code).toBe(1);
    for (const expected of [
      'must not use :latest',
      'base image "node:20.19-bookworm-slim": Node 20 reached its end of life on 2026-04-30',
      'base image "node:23.1-slim": Node 23 is not an LTS line',
      'use COPY, not ADD',
      'use "npm ci"',
      'COPY source "missing.txt" does not exist',
      'COPY --from=ghost: no such stage',
      'the final stage must run as a non-root USER',
      'the final stage has no HEALTHCHECK',
      'npm ci --omit=dev',
      '.dockerignore is missing',
      'only the gateway may publish ports',
      'no "nats" service',
      '/services/billing/stop_grace_period must match format "duration"',
    ]) {
      expect(result.output).toContain(expected);
    }
  });
});
