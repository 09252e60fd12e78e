export { kustomize, overlaysOf, componentsOf, renders, scratchCopy, secondInstall } from './render.mjs';
export { schemaProblems, strictFieldProblems, CRD_KINDS } from './schemas.mjs';
