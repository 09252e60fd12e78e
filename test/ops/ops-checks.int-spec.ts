import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CATALOGUE, engineKinds, parseCatalogueFile } from '@gen/generation';

const ROOT = join(__dirname, '..', '..');

function run(script: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(ROOT, 'tools', 'ops', script), ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The CI checks of the deployment files reject what they are meant to reject (CI runs them on the real files). */
describe('ops checks', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'ops-checks-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('check-k8s passes the repository manifests', () => {
    const result = run('check-k8s.mjs');
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain('validated against the Kubernetes schemas');
  });

  it('check-k8s rejects schema errors, unknown fields, missing probes and limits, a public non-gateway service, replicas under an HPA and webhook ports the egress policy does not open', () => {
    const dir = join(work, 'k8s');
    cpSync(join(ROOT, 'k8s'), dir, { recursive: true });
    const edit = (file: string, from: string | RegExp, to: string) =>
      writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
    edit('gateway.yaml', 'revisionHistoryLimit: 5', 'revisionHistoryLimit: five');
    edit('billing.yaml', 'revisionHistoryLimit: 5', 'replicas: 2\n  revisionHistoryLimit: 5');
    edit('config.yaml', 'WEBHOOK_ALLOWED_PORTS: "443"', 'WEBHOOK_ALLOWED_PORTS: "443,8443"');
    edit('billing.yaml', 'maxUnavailable: 1', 'maxUnavailble: 1');
    edit('generation.yaml', /limits: \{ cpu: "2", memory: 1Gi \}/, 'limits: { cpu: "2" }');
    edit('webhooks.yaml', 'path: /readyz', 'path: /ready');
    edit('webhooks.yaml', 'type: ClusterIP', 'type: LoadBalancer');
    const result = run('check-k8s.mjs', dir);
    expect(result.code).toBe(1);
    expect(result.output).toContain('data/spec/revisionHistoryLimit must be integer');
    expect(result.output).toContain('gen-billing: no replicas field on a Deployment its HorizontalPodAutoscaler scales');
    expect(result.output).toContain('WEBHOOK_ALLOWED_PORTS (443,8443) must equal the ports gen-egress-internet opens to the internet (443)');
    expect(result.output).toContain("'\"maxUnavailble\"' does not exist in type 'PodDisruptionBudgetSpec'");
    expect(result.output).toContain('gen-generation/generation: resources.limits.memory is required');
    expect(result.output).toContain('gen-webhooks: readinessProbe must GET /readyz on the http port');
    expect(result.output).toContain('gen-webhooks: only the gateway may be exposed outside the cluster');
  });

  it('check-k8s requires the migration Job to migrate first, then sync the catalogue from gen-catalogue', () => {
    const dir = join(work, 'k8s');
    cpSync(join(ROOT, 'k8s'), dir, { recursive: true });
    const job = join(dir, 'migrate-job.yaml');
    writeFileSync(job, readFileSync(job, 'utf8').replace('"models", "sync"', '"models", "list"').replace('configMap: { name: gen-catalogue }', 'configMap: { name: gen-config }'));
    const result = run('check-k8s.mjs', dir);
    expect(result.code).toBe(1);
    expect(result.output).toContain('gen-migrate must apply the catalogue (CLI models sync) after the migrations');
    expect(result.output).toContain('gen-migrate must mount the ConfigMap gen-catalogue');
  });

  it('the catalogue the migration Job applies is valid and is the seed catalogue', () => {
    const configMap = parse(readFileSync(join(ROOT, 'k8s', 'catalogue.yaml'), 'utf8')) as { data: { 'catalogue.json': string } };
    const problems: string[] = [];
    const models = parseCatalogueFile(JSON.parse(configMap.data['catalogue.json']), engineKinds(), problems);
    expect(problems).toEqual([]);
    expect(models).toEqual(CATALOGUE);
  });

  it('check-docker passes the repository files (after a build) and rejects a bad Dockerfile and compose file', () => {
    const repo = run('check-docker.mjs');
    // dist/ exists only after `npm run build`; CI builds before this suite's checks run.
    if (repo.code !== 0) expect(repo.output).toContain('run npm run build first');
    mkdirSync(join(work, 'docker'));
    writeFileSync(
      join(work, 'docker', 'Dockerfile'),
      ['FROM node:latest', 'ADD src /app', 'RUN npm install', 'COPY missing.txt /app/', 'COPY --from=ghost /a /b', 'CMD ["node"]'].join('\n'),
    );
    writeFileSync(join(work, 'docker', 'compose.yml'), 'services:\n  gateway:\n    image: x:1\n    ports: ["3000:3000"]\n  billing:\n    image: x:1\n    ports: ["8080:8080"]\n    stop_grace_period: soon\n');
    const result = run('check-docker.mjs', work);
    expect(result.code).toBe(1);
    for (const expected of [
      'must not use :latest',
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
