import type { OutputStorage } from '@gen/storage';
import type { Engine } from '../../ports/engine';
import type { EngineKind } from '../../ports/engine-kind';
import { Credential, readCredential, unavailableEngine } from './upstream-client';

/** Where a binding's credential is read from, and how it is sent (`Authorization: Bearer <secret>`). */
export interface CredentialSource {
  /** The environment variable holding the secret (the binding names it), or null for none. */
  env: string | null;
  header: string;
  prefix: string;
}

/**
 * What a provider kind declares; `bindingEngineKind` makes its EngineKind, so parsing, the credential,
 * the unavailable engine and the construction are written once.
 */
export interface BindingKindDeclaration<S> {
  readonly kind: string;
  /** Who serves its models, as the catalogue shows it (EngineKind.provider). */
  readonly provider: string;
  /** The binding's settings, or null with each problem pushed (`${where}.<field>`). */
  parse(settings: Record<string, unknown>, where: string, problems: string[]): S | null;
  /** Where the credential of a parsed binding comes from; null when the binding sends none. */
  credential(settings: S): CredentialSource | null;
  /** A kind whose provider always needs a credential is unavailable without one; otherwise it runs without. */
  readonly credentialRequired: boolean;
  /** The adapter, built like every UpstreamEngine (its name is `<kind>:<model id>`). */
  readonly engine: new (name: string, settings: S, credential: Credential | null, allowPrivateNetworks: boolean, storage?: OutputStorage) => Engine;
}

/** The EngineKind of a provider adapter from its declaration. */
export function bindingEngineKind<S>(declaration: BindingKindDeclaration<S>): EngineKind {
  return {
    kind: declaration.kind,
    provider: declaration.provider,
    validate(settings, where, problems) {
      declaration.parse(settings, where, problems);
    },
    create(modelId, settings, context): Engine {
      const name = `${declaration.kind}:${modelId}`;
      const parsed = declaration.parse(settings, `models["${modelId}"].engine`, []);
      if (!parsed) throw new Error(`the binding of ${modelId} does not validate`); // validated when written: a bug
      const source = declaration.credential(parsed);
      const credential = source ? readCredential(source.env, context, source.header, source.prefix) : null;
      if (credential === 'missing' || (credential === null && declaration.credentialRequired)) return unavailableEngine(name);
      return new declaration.engine(name, parsed, credential, context.allowPrivateNetworks, context.storage);
    },
  };
}
