#!/usr/bin/env node
// CI's check of the NATS message contract (`npm run contracts:check`, docs/design/messages.md):
// 1. docs/design/messages.asyncapi.yaml parses with the AsyncAPI parser without an error-severity
//    diagnostic (warnings and hints are printed, not fatal);
// 2. it breaks nothing against the previous release: the snapshot of the newest contract version in
//    release/releases.json (release/contracts/<version>.asyncapi.yaml), by breaking-changes.js's rules;
// 3. its info.version is not older than that release's.
// That the document is what the classes generate is a spec's job (libs/contracts/src/asyncapi,
// document.spec.ts): it needs TypeScript, this runs before the build.
// Usage: node tools/contracts/check.mjs [document] [baseline]   (exit 1 with one line per problem)
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';

const require = createRequire(import.meta.url);
const { breakingChanges } = require('./breaking-changes.js');
const semver = require('semver');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const documentPath = resolve(process.argv[2] ?? join(root, 'docs', 'design', 'messages.asyncapi.yaml'));
const started = Date.now();
const problems = [];

const text = readFileSync(documentPath, 'utf8');
const { document, diagnostics } = await new Parser().parse(text, { source: documentPath });
for (const d of diagnostics) {
  const line = `${relative(root, documentPath)}:${(d.range?.start?.line ?? 0) + 1}: ${d.code}: ${d.message} (${d.path.join('.') || 'document'})`;
  if (d.severity === DiagnosticSeverity.Error) problems.push(line);
  else console.log(`note: ${line}`);
}
if (!document && problems.length === 0) problems.push(`${relative(root, documentPath)}: the parser returned no document`);

const baselinePath = process.argv[3] ? resolve(process.argv[3]) : newestReleasedContract();
if (baselinePath) {
  const before = parseYaml(readFileSync(baselinePath, 'utf8'));
  const after = parseYaml(text);
  const changes = breakingChanges(before, after);
  for (const change of changes) problems.push(`breaking change against ${relative(root, baselinePath)}: ${change}`);
  const [was, is] = [before.info?.version, after.info?.version];
  if (!semver.valid(is) || (semver.valid(was) && semver.lt(is, was))) problems.push(`info.version ${is} is not a version at or after the released ${was}`);
  // Not a failure: a compatible change waits for the next release, which bumps the version.
  else if (changes.length === 0 && is === was && JSON.stringify(before) !== JSON.stringify(after)) {
    console.log(`note: the contract differs from the released ${was} (compatibly); the release that ships it bumps MESSAGE_CONTRACT_VERSION and snapshots it (CONTRIBUTING.md, "Messages")`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`\nmessage contract: ${problems.length} problem(s). A subject that cannot change compatibly gets a new versioned subject beside the old one (CONTRIBUTING.md, "Messages").`);
  process.exit(1);
}
console.log(`message contract: ${relative(root, documentPath)} parses, and breaks nothing against ${relative(root, baselinePath)} (${Date.now() - started} ms)`);

/** release/contracts/<v>.asyncapi.yaml of the highest `contract` any release in release/releases.json names. */
function newestReleasedContract() {
  const { releases } = JSON.parse(readFileSync(join(root, 'release', 'releases.json'), 'utf8'));
  const versions = releases.map((release) => release.contract).filter((version) => semver.valid(version));
  if (versions.length === 0) {
    problems.push('release/releases.json names no contract version: nothing to compare with');
    return undefined;
  }
  const newest = versions.sort(semver.rcompare)[0];
  const path = join(root, 'release', 'contracts', `${newest}.asyncapi.yaml`);
  if (!existsSync(path)) {
    problems.push(`${relative(root, path)} is missing: the snapshot of contract ${newest}, which a release names`);
    return undefined;
  }
  return path;
}
