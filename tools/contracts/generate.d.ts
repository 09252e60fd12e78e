/** The contract document as the committed YAML reads (generate.js). */
export function toYaml(document: object): string;
export function contractYaml(): string;
export const OUTPUT: string;
