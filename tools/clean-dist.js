#!/usr/bin/env node
// Removes dist/ before a build, so a file deleted or moved in the sources (a module that became a
// folder of the same name, say) leaves no stale copy that Node would still resolve.
const { rmSync } = require('node:fs');
const { join } = require('node:path');

rmSync(join(__dirname, '..', 'dist'), { recursive: true, force: true });
