// `nx release version`'s version actions for this workspace's released projects (nx.json, "release").
// Why our own: the default ones come with the @nx/js plugin, which the workspace does not install,
// and the Python SDK needs its own anyway. Each project's version lives in one manifest at its root:
// - package.json (the four services, apps/<service>/package.json; the TypeScript SDK, libs/sdk);
// - pyproject.toml (the Python SDK, sdk/python), whose `version` under [project] is rewritten, and
//   generation_service/_version.py with it (the package's __version__ and its User-Agent).
// Released projects do not depend on one another's versions: each image carries the libs it was built
// with, so there are no dependency ranges to bump.
'use strict';
const { join } = require('node:path');
const { VersionActions } = require('nx/release');

const PYPROJECT_VERSION = /^(\[project\][^[]*?^version\s*=\s*")([^"]+)(")/m;

/** The version in a pyproject.toml's [project] table, or null. */
function pyprojectVersion(text) {
  return PYPROJECT_VERSION.exec(text)?.[2] ?? null;
}

/** The pyproject.toml text with its [project] version replaced. */
function withPyprojectVersion(text, version) {
  if (!PYPROJECT_VERSION.test(text)) throw new Error('pyproject.toml has no version under [project]');
  return text.replace(PYPROJECT_VERSION, `$1${version}$3`);
}

class WorkspaceVersionActions extends VersionActions {
  validManifestFilenames = ['package.json'];

  // One manifest per project: pyproject.toml where there is no package.json (Nx's own init takes the
  // first name listed, whether or not that file exists).
  async init(tree) {
    const root = this.projectGraphNode.data.root;
    if (!tree.exists(join(root, 'package.json')) && tree.exists(join(root, 'pyproject.toml'))) this.validManifestFilenames = ['pyproject.toml'];
    return super.init(tree);
  }

  async readCurrentVersionFromSourceManifest(tree) {
    const manifest = this.manifestsToUpdate[0]?.manifestPath;
    if (!manifest || !tree.exists(manifest)) return null;
    const text = tree.read(manifest, 'utf-8');
    const currentVersion = manifest.endsWith('.toml') ? pyprojectVersion(text) : JSON.parse(text).version;
    return currentVersion ? { currentVersion, manifestPath: manifest } : null;
  }

  // Nothing is published to a registry from here: the version on disk is the current one.
  async readCurrentVersionFromRegistry() {
    return null;
  }

  async readDependencies() {
    return [];
  }

  async readCurrentVersionOfDependency() {
    return { currentVersion: null, dependencyCollection: null };
  }

  async updateProjectVersion(tree, newVersion) {
    const logs = [];
    for (const { manifestPath } of this.manifestsToUpdate) {
      const text = tree.read(manifestPath, 'utf-8');
      if (manifestPath.endsWith('.toml')) {
        tree.write(manifestPath, withPyprojectVersion(text, newVersion));
        const versionFile = join(this.projectGraphNode.data.root, 'generation_service', '_version.py');
        if (tree.exists(versionFile)) {
          tree.write(versionFile, tree.read(versionFile, 'utf-8').replace(/__version__ = "[^"]*"/, `__version__ = "${newVersion}"`));
          logs.push(`✍️  New version ${newVersion} written to ${versionFile}`);
        }
      } else {
        // Only the version's own value, so the manifest keeps its layout.
        if (typeof JSON.parse(text).version !== 'string') throw new Error(`${manifestPath} has no version`);
        tree.write(manifestPath, text.replace(/("version"\s*:\s*")[^"]*(")/, `$1${newVersion}$2`));
      }
      logs.push(`✍️  New version ${newVersion} written to manifest: ${manifestPath}`);
    }
    return logs;
  }

  async updateProjectDependencies() {
    return [];
  }
}

module.exports = WorkspaceVersionActions;
module.exports.default = WorkspaceVersionActions;
module.exports.pyprojectVersion = pyprojectVersion;
module.exports.withPyprojectVersion = withPyprojectVersion;
