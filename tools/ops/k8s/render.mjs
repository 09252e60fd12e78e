// Renders the Kubernetes manifests the way an operator would (`kubectl kustomize`, offline), in a
// scratch copy of the folder so that nothing in the checkout changes: every overlay alone, every
// overlay with every component, and a second install beside each overlay (another namePrefix and
// instance label) for the collision check.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseAllDocuments, parseDocument } from 'yaml';

const dirsWithKustomization = (dir) =>
  existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, 'kustomization.yaml'))).sort() : [];

/** A scratch copy of the manifest folder; secret files an operator writes (*.env) come from their *.env.example. */
export function scratchCopy(dir) {
  const work = mkdtempSync(join(tmpdir(), 'check-k8s-'));
  const copy = join(work, 'k8s');
  cpSync(dir, copy, { recursive: true });
  const fill = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) fill(path);
      else if (entry.name.endsWith('.env.example') && !existsSync(path.slice(0, -'.example'.length))) cpSync(path, path.slice(0, -'.example'.length));
    }
  };
  fill(copy);
  return { copy, dispose: () => rmSync(work, { recursive: true, force: true }) };
}

export function overlaysOf(dir) {
  return dirsWithKustomization(join(dir, 'overlays'));
}

export function componentsOf(dir) {
  return dirsWithKustomization(join(dir, 'components'));
}

const readKustomization = (folder) => parseDocument(readFileSync(join(folder, 'kustomization.yaml'), 'utf8')).toJS() ?? {};
const writeKustomization = (folder, value) => writeFileSync(join(folder, 'kustomization.yaml'), parseDocument('').createNode(value).toString());

/** `kubectl kustomize` of one folder: the objects, or the error kubectl printed. */
export function kustomize(folder) {
  try {
    const text = execFileSync('kubectl', ['kustomize', folder], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    const objects = [];
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length) return { error: doc.errors.map((e) => e.message).join('; ') };
      const value = doc.toJS();
      if (value) objects.push(value);
    }
    return { objects };
  } catch (error) {
    if (error.code === 'ENOENT') return { error: 'kubectl is not installed (needed for `kubectl kustomize`)' };
    return { error: `${error.stderr ?? error.message}`.trim().split('\n').slice(-3).join(' ') };
  }
}

/**
 * Every render to check, in the scratch copy: each overlay as written; each overlay with every
 * component (the external-secrets component replaces the overlay's secretGenerator, as its README
 * says); each overlay again under another name and instance, rendered beside the first.
 */
export function renders(copy) {
  const components = componentsOf(copy);
  const out = [];
  for (const overlay of overlaysOf(copy)) {
    const folder = join(copy, 'overlays', overlay);
    const kustomization = readKustomization(folder);
    out.push({ name: overlay, overlay, folder, kustomization, components: kustomization.components ?? [] });
    if (components.length) {
      const variant = join(copy, 'overlays', `${overlay}--with-components`);
      cpSync(folder, variant, { recursive: true });
      const k = structuredClone(kustomization);
      k.components = [...new Set([...(k.components ?? []), ...components.map((c) => `../../components/${c}`)])];
      if (components.includes('external-secrets')) delete k.secretGenerator;
      writeKustomization(variant, k);
      out.push({ name: `${overlay} + components (${components.join(', ')})`, overlay, folder: variant, kustomization: k, components: k.components });
    }
  }
  return out;
}

/** The same overlay as a second install: another namePrefix and instance label. */
export function secondInstall(copy, overlay) {
  const folder = join(copy, 'overlays', overlay);
  const second = join(copy, 'overlays', `${basename(folder)}--second`);
  cpSync(folder, second, { recursive: true });
  const k = readKustomization(second);
  k.namePrefix = `${k.namePrefix ?? ''}b-`;
  for (const entry of k.labels ?? []) {
    if (entry.pairs?.['app.kubernetes.io/instance']) entry.pairs['app.kubernetes.io/instance'] += '-b';
  }
  writeKustomization(second, k);
  return second;
}
