/**
 * The version of the NATS message contract (docs/design/messages.asyncapi.yaml's `info.version`).
 * A compatible addition (a new optional field, a new subject) raises the minor version; a subject
 * that cannot change compatibly gets a new versioned subject served beside the old one for the
 * support window, never an edit in place (CONTRIBUTING.md, "Messages").
 */
export const MESSAGE_CONTRACT_VERSION = '1.0.0';
